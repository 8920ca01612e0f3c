import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { EntityManager } from 'typeorm';
import { logger } from '../logger';
import { inPool } from '../automations/pool';
import { campaignWorkflowId, executionWorkflowId, jobWorkflowId } from '../../workflows/shared';
import * as queries from './projects-queries';

/** How many Temporal workflows are cancelled at once. */
const CANCEL_CONCURRENCY = 10;

/**
 * The Temporal workflows running the project's work: campaigns SCHEDULED or SENDING, executions
 * RUNNING or WAITING, jobs QUEUED or RUNNING. The project's workflows and campaigns are locked
 * first, so no execution or campaign send starts until the transaction ends.
 */
async function runningWorkflowIds(manager: EntityManager, projectId: string): Promise<string[]> {
  const campaigns = await queries.lockWorkflowsAndCampaigns(manager, projectId);
  const executions = await queries.liveExecutionIds(manager, projectId);
  const jobs = await queries.liveJobs(manager, projectId);
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
  await queries.deleteProjectData(manager, projectId);
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
