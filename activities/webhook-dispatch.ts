import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { webhookTaskQueue } from '../src/orchestration/task-queues';
import { DISPATCH_BATCH, dispatchDeliveries } from '../src/webhooks/webhook-dispatch';

/** Activities of the webhook-dispatch workflow. */
export function createWebhookDispatchActivities(deps: { dataSource: DataSource }) {
  return {
    /**
     * Starts the delivery workflows (on the webhook task queue of this worker's queue) of up to a batch of deliveries
     * not started yet; `more` when the batch was full. Throws when it claimed some and could start none (Temporal refusing).
     */
    async startWebhookDeliveries(): Promise<{ started: number; more: boolean }> {
      const { client, info, log } = Context.current();
      const { started, failed, error } = await dispatchDeliveries(deps.dataSource, client, webhookTaskQueue(info.taskQueue));
      if (failed > 0 && started === 0) throw new Error(`No webhook delivery could be started (${failed} tried): ${error}`);
      if (failed > 0) log.warn('Some webhook deliveries could not be started; the next pass tries them again', { started, failed, error });
      return { started, more: started + failed >= DISPATCH_BATCH };
    },
  };
}
