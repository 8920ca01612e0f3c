import type { Client } from '@temporalio/client';
import { eventRedelivery } from '../../workflows/event-redelivery';
import { EVENT_REDELIVERY_WORKFLOW_ID } from '../../workflows/shared';
import { ensureRunning } from './long-running';

/** Starts the `event-redelivery` workflow unless it already runs; safe to call on every start-up. */
export async function ensureEventRedelivery(client: Client, taskQueue: string): Promise<void> {
  await ensureRunning(client, eventRedelivery, {
    workflowId: EVENT_REDELIVERY_WORKFLOW_ID,
    taskQueue,
    staticSummary: 'Redeliver event dispatches left incomplete',
  });
}
