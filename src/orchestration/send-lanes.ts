import type { Client } from '@temporalio/client';
import { SEND_LANES } from '../sending/send-lanes';
import { sendLane } from '../../workflows/send-lane';
import { sendLaneWorkflowId } from '../../workflows/shared';
import { ensureRunning } from './long-running';

/** Starts the `send-lane/<taskQueue>/<n>` workflows that do not run yet; safe to call on every start-up. */
export async function ensureSendLanes(client: Client, taskQueue: string): Promise<void> {
  for (let lane = 0; lane < SEND_LANES; lane++) {
    await ensureRunning(client, sendLane, {
      workflowId: sendLaneWorkflowId(taskQueue, lane),
      taskQueue,
      args: [lane],
      staticSummary: `Deliver the send queue (/v1/send, batch and SMTP relay emails), lane ${lane}`,
    });
  }
}
