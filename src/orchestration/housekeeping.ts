import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { housekeeping } from '../../workflows/housekeeping';
import { HOUSEKEEPING_WORKFLOW_ID } from '../../workflows/shared';

/** Starts the `housekeeping` workflow unless it already runs; safe to call on every start-up. */
export async function ensureHousekeeping(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.workflow.start(housekeeping, {
      workflowId: HOUSEKEEPING_WORKFLOW_ID,
      taskQueue,
      staticSummary: 'Purge expired keys, windows, sessions, tokens and mail events daily',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
