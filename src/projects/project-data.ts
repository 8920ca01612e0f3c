import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { EntityManager } from 'typeorm';
import type { JobType } from '../entities/job';
import { logger } from '../logger';
import { inPool } from '../automations/pool';
import { campaignWorkflowId, executionWorkflowId, jobWorkflowId } from '../../workflows/shared';

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

/** How many Temporal workflows are cancelled at once. */
const CANCEL_CONCURRENCY = 10;

/**
 * The Temporal workflows running the project's work: campaigns SCHEDULED or SENDING, executions
 * RUNNING or WAITING, jobs QUEUED or RUNNING. The project's workflows and campaigns are locked
 * first, so no execution or campaign send starts until the transaction ends.
 */
async function runningWorkflowIds(manager: EntityManager, projectId: string): Promise<string[]> {
  await manager.query('SELECT id FROM workflows WHERE project_id = $1 FOR UPDATE', [projectId]);
  const campaigns: { id: string; status: string }[] = await manager.query(
    'SELECT id, status FROM campaigns WHERE project_id = $1 FOR UPDATE',
    [projectId],
  );
  const executions: { id: string }[] = await manager.query(
    `SELECT id FROM workflow_executions WHERE project_id = $1 AND status IN ('RUNNING', 'WAITING')`,
    [projectId],
  );
  const jobs: { id: string; type: JobType }[] = await manager.query(
    `SELECT id, type FROM jobs WHERE project_id = $1 AND status IN ('QUEUED', 'RUNNING')`,
    [projectId],
  );
  return [
    ...campaigns.filter((campaign) => campaign.status === 'SCHEDULED' || campaign.status === 'SENDING').map((campaign) => campaignWorkflowId(campaign.id)),
    ...executions.map((execution) => executionWorkflowId(execution.id)),
    ...jobs.map(jobWorkflowId),
  ];
}

/**
 * Deletes every row of the project's data tables within the transaction, and answers the ids of
 * the Temporal workflows that were running its work, for `cancelWorkflows` once it commits.
 */
export async function wipeProjectData(manager: EntityManager, projectId: string): Promise<string[]> {
  const running = await runningWorkflowIds(manager, projectId);
  for (const table of PROJECT_DATA_TABLES) {
    await manager.query(`DELETE FROM ${table} WHERE project_id = $1`, [projectId]);
  }
  return running;
}

/**
 * Cancels Temporal workflows whose records were deleted. One already ended is no error; another
 * failure is logged, and harmless: the workflow's activities find no record and do nothing.
 */
export async function cancelWorkflows(temporal: Client | undefined, workflowIds: string[]): Promise<void> {
  if (!temporal) return;
  await inPool(workflowIds, CANCEL_CONCURRENCY, async (workflowId) => {
    try {
      await temporal.workflow.getHandle(workflowId).cancel();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) logger.warn({ err, workflowId }, 'could not cancel the workflow of deleted project data');
    }
  });
}
