import type { DataSource } from 'typeorm';

/** One onboarding step and how to tell whether a project has done it. */
export interface SetupStep {
  id: string;
  title: string;
  isDone(dataSource: DataSource, projectId: string): Promise<boolean>;
}

const exists = async (dataSource: DataSource, sql: string, projectId: string) =>
  ((await dataSource.query(`SELECT EXISTS (${sql}) AS done`, [projectId])) as { done: boolean }[])[0].done;

/** The onboarding steps, in the order a new project usually takes them; each resource adds its own. */
export const SETUP_STEPS: SetupStep[] = [
  {
    id: 'project_created',
    title: 'Create a project',
    isDone: (dataSource, projectId) => exists(dataSource, 'SELECT 1 FROM projects WHERE id = $1', projectId),
  },
  {
    id: 'domain_verified',
    title: 'Verify a sending domain',
    isDone: (dataSource, projectId) => exists(dataSource, "SELECT 1 FROM domains WHERE project_id = $1 AND status = 'VERIFIED'", projectId),
  },
  {
    id: 'first_contact',
    title: 'Add your first contact',
    isDone: (dataSource, projectId) => exists(dataSource, 'SELECT 1 FROM contacts WHERE project_id = $1', projectId),
  },
  {
    id: 'first_email',
    title: 'Send your first email',
    isDone: (dataSource, projectId) => exists(dataSource, 'SELECT 1 FROM emails WHERE project_id = $1 AND sent_at IS NOT NULL', projectId),
  },
  {
    id: 'first_campaign',
    title: 'Send your first campaign',
    isDone: (dataSource, projectId) =>
      exists(dataSource, "SELECT 1 FROM campaigns WHERE project_id = $1 AND status IN ('SENDING', 'SENT')", projectId),
  },
  {
    id: 'team_invited',
    title: 'Invite a teammate',
    isDone: (dataSource, projectId) =>
      exists(
        dataSource,
        `SELECT 1 FROM project_members WHERE project_id = $1 AND role <> 'OWNER'
         UNION ALL SELECT 1 FROM project_invites WHERE project_id = $1`,
        projectId,
      ),
  },
];

/** The project's onboarding state: every step with whether it is done. */
export async function setupState(dataSource: DataSource, projectId: string) {
  const steps = await Promise.all(
    SETUP_STEPS.map(async (step) => ({ id: step.id, title: step.title, done: await step.isDone(dataSource, projectId) })),
  );
  return { steps, completed: steps.every((step) => step.done) };
}
