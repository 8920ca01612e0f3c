import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';

/** Starts one of Herald's long-running workflows unless it already runs; safe to call on every start-up. */
export async function ensureRunning<T extends Workflow>(client: Client, workflow: T, options: WorkflowStartOptions<T>): Promise<void> {
  try {
    await client.workflow.start(workflow, options);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
