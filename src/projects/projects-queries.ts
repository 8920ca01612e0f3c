import type { DataSource, EntityManager } from 'typeorm';
import { ApiKey } from '../entities/api-key';
import type { JobType } from '../entities/job';
import { Project } from '../entities/project';
import { ProjectMember, type MemberRole } from '../entities/project-member';

type Db = DataSource | EntityManager;

/** A project by id; throws when there is none. */
export function findProject(db: Db, projectId: string): Promise<Project> {
  return db.getRepository(Project).findOneByOrFail({ id: projectId });
}

/** The prefix of each of a project's keys, by kind (`public`, `secret`). */
export async function keyPrefixes(db: Db, projectId: string): Promise<Record<string, string>> {
  const keys = await db.getRepository(ApiKey).findBy({ projectId });
  return Object.fromEntries(keys.map((key) => [key.kind, key.prefix]));
}

/** Creates a project with its creator as OWNER. */
export async function insertProject(manager: EntityManager, name: string, ownerId: string): Promise<Project> {
  const project = manager.create(Project, { name });
  await manager.save(project);
  await manager.insert(ProjectMember, { projectId: project.id, userId: ownerId, role: 'OWNER' });
  return project;
}

/** The projects a user belongs to, oldest first, with their role in each. */
export function listMemberships(db: Db, userId: string): Promise<{ id: string; role: MemberRole }[]> {
  return db.query(
    `SELECT p.id, m.role FROM projects p JOIN project_members m ON m.project_id = p.id
      WHERE m.user_id = $1 ORDER BY p.created_at`,
    [userId],
  );
}

/** Renames a project. */
export async function renameProject(db: Db, projectId: string, name: string): Promise<void> {
  await db.getRepository(Project).update({ id: projectId }, { name });
}

/** Deletes the project row (its data first, see `wipeProjectData`). */
export async function deleteProject(manager: EntityManager, projectId: string): Promise<void> {
  await manager.delete(Project, { id: projectId });
}

/**
 * Tables holding a project's own data, in an order that respects foreign keys (deleting a
 * workflow deletes its steps, transitions and executions; a segment its members).
 * `POST /users/@me/projects/{id}/reset` empties them; project, members, keys, domains and the
 * suppression list are kept. Each resource adds its tables here.
 */
export const PROJECT_DATA_TABLES: string[] = [
  'event_dispatches',
  'idempotency_keys',
  'workflows',
  'campaigns',
  'segments',
  'emails',
  'email_contents',
  'events',
  'jobs',
  'contacts',
  'contact_fields',
  'templates',
];

/** Locks the project's workflows and campaigns for the transaction, so no execution or campaign send starts; answers the campaigns. */
export async function lockWorkflowsAndCampaigns(manager: EntityManager, projectId: string): Promise<{ id: string; status: string }[]> {
  await manager.query('SELECT id FROM workflows WHERE project_id = $1 FOR UPDATE', [projectId]);
  return manager.query('SELECT id, status FROM campaigns WHERE project_id = $1 FOR UPDATE', [projectId]);
}

/** The ids of the project's workflow executions RUNNING or WAITING. */
export function liveExecutionIds(manager: EntityManager, projectId: string): Promise<{ id: string }[]> {
  return manager.query(`SELECT id FROM workflow_executions WHERE project_id = $1 AND status IN ('RUNNING', 'WAITING')`, [projectId]);
}

/** The project's jobs QUEUED or RUNNING, with their type. */
export function liveJobs(manager: EntityManager, projectId: string): Promise<{ id: string; type: JobType }[]> {
  return manager.query(`SELECT id, type FROM jobs WHERE project_id = $1 AND status IN ('QUEUED', 'RUNNING')`, [projectId]);
}

/** Deletes every row of the project's data tables (PROJECT_DATA_TABLES), table by table in that order. */
export async function deleteProjectData(manager: EntityManager, projectId: string): Promise<void> {
  for (const table of PROJECT_DATA_TABLES) {
    await manager.query(`DELETE FROM ${table} WHERE project_id = $1`, [projectId]);
  }
}

/** Per onboarding step, the query (`$1`: the project id) that finds a row once the project has done it. */
export const SETUP_STEP_QUERIES = {
  project_created: 'SELECT 1 FROM projects WHERE id = $1',
  domain_verified: "SELECT 1 FROM domains WHERE project_id = $1 AND status = 'VERIFIED'",
  first_contact: 'SELECT 1 FROM contacts WHERE project_id = $1',
  first_email: 'SELECT 1 FROM emails WHERE project_id = $1 AND sent_at IS NOT NULL',
  first_campaign: "SELECT 1 FROM campaigns WHERE project_id = $1 AND status IN ('SENDING', 'SENT')",
  team_invited: `SELECT 1 FROM project_members WHERE project_id = $1 AND role <> 'OWNER'
                    UNION ALL SELECT 1 FROM project_invites WHERE project_id = $1`,
};

/** An onboarding step, by the name its query has. */
export type SetupStepId = keyof typeof SETUP_STEP_QUERIES;

/** Whether the project has done each of these steps, in their order, read in one statement. */
export async function setupStepsDone(db: Db, projectId: string, steps: SetupStepId[]): Promise<boolean[]> {
  const columns = steps.map((step, i) => `EXISTS (${SETUP_STEP_QUERIES[step]}) AS s${i}`).join(', ');
  const [row]: Record<string, boolean>[] = await db.query(`SELECT ${columns}`, [projectId]);
  return steps.map((_step, i) => row[`s${i}`]);
}
