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
      staticSummary: webhookSummary(delivery.eventType, new URL(delivery.url).origin),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** What one dispatch pass did: deliveries whose workflow it started, and those whose start failed (left for the next pass). */
export interface DispatchResult {
  started: number;
  failed: number;
  /** The first failed start's message. */
  error?: string;
}

/**
 * One dispatch pass: in one transaction, locks up to `limit` deliveries whose workflow is not
 * started (skipping rows another pass holds), starts their workflows and marks those started. A
 * start that fails, or a crash, leaves deliveries unstarted for the next pass, which starts them
 * again (an already started workflow is not started twice); one delivery that cannot be started
 * holds none of the others back.
 */
export async function dispatchDeliveries(dataSource: DataSource, temporal: Client, taskQueue: string, limit = DISPATCH_BATCH): Promise<DispatchResult> {
  return dataSource.transaction(async (manager) => {
    const deliveries = await claimUnstarted(manager, limit);
    const started: string[] = [];
    const errors: string[] = [];
    for (let from = 0; from < deliveries.length; from += START_CONCURRENCY) {
      const group = deliveries.slice(from, from + START_CONCURRENCY);
      const outcomes = await Promise.allSettled(group.map((delivery) => startDelivery(temporal, taskQueue, delivery)));
      outcomes.forEach((outcome, n) => (outcome.status === 'fulfilled' ? started.push(group[n].id) : errors.push((outcome.reason as Error).message)));
    }
    if (started.length > 0) await markStarted(manager, started);
    return { started: started.length, failed: errors.length, ...(errors.length > 0 ? { error: errors[0] } : {}) };
  });
}
