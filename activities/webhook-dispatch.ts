import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { DISPATCH_BATCH, dispatchDeliveries } from '../src/webhooks/webhook-dispatch';

/** Activities of the webhook-dispatch workflow. */
export function createWebhookDispatchActivities(deps: { dataSource: DataSource }) {
  return {
    /**
     * Starts the delivery workflows (on this worker's task queue) of up to a batch of deliveries
     * not started yet; `more` when the batch was full.
     */
    async startWebhookDeliveries(): Promise<{ started: number; more: boolean }> {
      const { client, info } = Context.current();
      const started = await dispatchDeliveries(deps.dataSource, client, info.taskQueue);
      return { started, more: started >= DISPATCH_BATCH };
    },
  };
}
