import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { eventRedelivery } from '../../workflows/event-redelivery';
import { EVENT_REDELIVERY_WORKFLOW_ID } from '../../workflows/shared';

/** Starts the `event-redelivery` workflow unless it already runs; safe to call on every start-up. */
export async function ensureEventRedelivery(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.workflow.start(eventRedelivery, {
      workflowId: EVENT_REDELIVERY_WORKFLOW_ID,
      taskQueue,
      staticSummary: 'Redeliver event dispatches left incomplete',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
