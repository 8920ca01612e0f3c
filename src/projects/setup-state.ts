import type { DataSource } from 'typeorm';
import { setupStepsDone, type SetupStepId } from './projects-queries';

/** One onboarding step; the query that finds it done is in `SETUP_STEP_QUERIES`. */
export interface SetupStep {
  id: SetupStepId;
  title: string;
}

/** The onboarding steps, in the order a new project usually takes them; each resource adds its own (and its query). */
export const SETUP_STEPS: SetupStep[] = [
  { id: 'project_created', title: 'Create a project' },
  { id: 'domain_verified', title: 'Verify a sending domain' },
  { id: 'first_contact', title: 'Add your first contact' },
  { id: 'first_email', title: 'Send your first email' },
  { id: 'first_campaign', title: 'Send your first campaign' },
  { id: 'team_invited', title: 'Invite a teammate' },
];

/** The project's onboarding state: every step with whether it is done, read in one statement. */
export async function setupState(dataSource: DataSource, projectId: string) {
  const done = await setupStepsDone(dataSource, projectId, SETUP_STEPS.map((step) => step.id));
  const steps = SETUP_STEPS.map((step, i) => ({ id: step.id, title: step.title, done: done[i] }));
  return { steps, completed: steps.every((step) => step.done) };
}
