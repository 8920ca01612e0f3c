import type { Client } from '@temporalio/client';
import { webhookDispatch } from '../../workflows/webhook-dispatch';
import { WEBHOOK_DISPATCH_WORKFLOW_ID } from '../../workflows/shared';
import { ensureRunning } from './long-running';

/** Starts the `webhook-dispatch` workflow unless it already runs; safe to call on every start-up. `workflowId` is for tests. */
export async function ensureWebhookDispatch(client: Client, taskQueue: string, workflowId = WEBHOOK_DISPATCH_WORKFLOW_ID): Promise<void> {
  await ensureRunning(client, webhookDispatch, {
    workflowId,
    taskQueue,
    staticSummary: 'Start the delivery workflows of recorded webhook events',
  });
}
