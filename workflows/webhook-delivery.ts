import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities, WebhookDeliveryInput } from '../activities/webhooks';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/**
 * The retry schedule of one delivery: 5 s, 10 s, 20 s, ... doubling up to an hour apart, for 25
 * hours in all (about 34 attempts), so the last attempt is more than 24 hours after the first.
 * One attempt is one POST (10 s at most) and its record.
 */
export const WEBHOOK_RETRY = {
  initialInterval: '5 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 hour',
  scheduleToClose: '25 hours',
} as const;

/** An attempt (a 10 s POST and two statements) cut off by a worker's death is attempted again after 30 s. */
const { deliverWebhook } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: WEBHOOK_RETRY.scheduleToClose,
  retry: { initialInterval: WEBHOOK_RETRY.initialInterval, backoffCoefficient: WEBHOOK_RETRY.backoffCoefficient, maximumInterval: WEBHOOK_RETRY.maximumInterval },
});

const { failWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Why the attempts ended, as recorded when the delivery has no error of its own yet. */
function reason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * `hook/<endpointId>/<eventId>`: delivers one event to one endpoint, retried by the activity's
 * retry policy until a 2xx answer, the endpoint's disabling or deletion, or 25 hours; then the
 * delivery is FAILED (also when an operator cancels the execution).
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'DELIVERED' | 'FAILED' | 'GONE'> {
  try {
    return await deliverWebhook(input);
  } catch (err) {
    const why = isCancellation(err) ? 'Delivery was cancelled' : `Attempts ran out: ${reason(err)}`;
    await CancellationScope.nonCancellable(() => failWebhookDelivery({ ...input, reason: why }));
    if (isCancellation(err)) throw err;
    return 'FAILED';
  }
}
