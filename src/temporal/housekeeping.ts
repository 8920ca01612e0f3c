import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { HOUSEKEEPING_WORKFLOW_ID, housekeeping } from '../../workflows/housekeeping';

/** Starts the `housekeeping` workflow unless it already runs; safe to call on every start-up. */
export async function ensureHousekeeping(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.workflow.start(housekeeping, { workflowId: HOUSEKEEPING_WORKFLOW_ID, taskQueue });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
