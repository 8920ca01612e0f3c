import type { DataSource } from 'typeorm';

/** One onboarding step and the query (`$1`: the project id) that finds a row once the project has done it. */
export interface SetupStep {
  id: string;
  title: string;
  doneWhenFound: string;
}

/** The onboarding steps, in the order a new project usually takes them; each resource adds its own. */
export const SETUP_STEPS: SetupStep[] = [
  { id: 'project_created', title: 'Create a project', doneWhenFound: 'SELECT 1 FROM projects WHERE id = $1' },
  { id: 'domain_verified', title: 'Verify a sending domain', doneWhenFound: "SELECT 1 FROM domains WHERE project_id = $1 AND status = 'VERIFIED'" },
  { id: 'first_contact', title: 'Add your first contact', doneWhenFound: 'SELECT 1 FROM contacts WHERE project_id = $1' },
  { id: 'first_email', title: 'Send your first email', doneWhenFound: 'SELECT 1 FROM emails WHERE project_id = $1 AND sent_at IS NOT NULL' },
  {
    id: 'first_campaign',
    title: 'Send your first campaign',
    doneWhenFound: "SELECT 1 FROM campaigns WHERE project_id = $1 AND status IN ('SENDING', 'SENT')",
  },
  {
    id: 'team_invited',
    title: 'Invite a teammate',
    doneWhenFound: `SELECT 1 FROM project_members WHERE project_id = $1 AND role <> 'OWNER'
                    UNION ALL SELECT 1 FROM project_invites WHERE project_id = $1`,
  },
];

/** The project's onboarding state: every step with whether it is done, read in one statement. */
export async function setupState(dataSource: DataSource, projectId: string) {
  const columns = SETUP_STEPS.map((step, i) => `EXISTS (${step.doneWhenFound}) AS s${i}`).join(', ');
  const [row]: Record<string, boolean>[] = await dataSource.query(`SELECT ${columns}`, [projectId]);
  const steps = SETUP_STEPS.map((step, i) => ({ id: step.id, title: step.title, done: row[`s${i}`] }));
  return { steps, completed: steps.every((step) => step.done) };
}
