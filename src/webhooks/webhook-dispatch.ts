import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { webhookDelivery } from '../../workflows/webhook-delivery';
import { webhookDeliveryWorkflowId, webhookSummary } from '../../workflows/shared';
import { claimUnstarted, markStarted, type UnstartedDelivery } from './webhooks-queries';

/** Deliveries one dispatch pass starts at most. */
export const DISPATCH_BATCH = 200;

/** Workflow starts a pass has in flight at once. */
const START_CONCURRENCY = 16;

/** Starts the delivery workflow of one delivery; one that already runs (or ran) counts as started. */
async function startDelivery(temporal: Client, taskQueue: string, delivery: UnstartedDelivery): Promise<void> {
  try {
    await temporal.workflow.start(webhookDelivery, {
      workflowId: webhookDeliveryWorkflowId(delivery.endpointId, delivery.eventId),
      taskQueue,
      args: [{ deliveryId: delivery.id }],
      staticSummary: webhookSummary(delivery.eventType, delivery.url),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * One dispatch pass: in one transaction, locks up to `limit` deliveries whose workflow is not
 * started (skipping rows another pass holds), starts their workflows and marks them started. A
 * crash or a failed start leaves them unstarted for the next pass, which starts them again
 * (an already started workflow is not started twice). Answers how many it started.
 */
export async function dispatchDeliveries(dataSource: DataSource, temporal: Client, taskQueue: string, limit = DISPATCH_BATCH): Promise<number> {
  return dataSource.transaction(async (manager) => {
    const deliveries = await claimUnstarted(manager, limit);
    for (let from = 0; from < deliveries.length; from += START_CONCURRENCY) {
      await Promise.all(deliveries.slice(from, from + START_CONCURRENCY).map((delivery) => startDelivery(temporal, taskQueue, delivery)));
    }
    if (deliveries.length > 0) await markStarted(manager, deliveries.map((delivery) => delivery.id));
    return deliveries.length;
  });
}
