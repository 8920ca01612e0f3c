import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
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

/**
 * The first attempt, a local activity in the workflow's first task (one task for the usual
 * success instead of three); not retried: a failure falls back to the retried activity.
 */
const { deliverWebhook: firstAttempt } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * The later attempts, from the second on (5 s after the first): an attempt (a 10 s POST and two
 * statements) cut off by a worker's death is attempted again after 30 s; the retry policy's
 * first interval is the schedule's second (10 s).
 */
const { deliverWebhook: laterAttempts } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: WEBHOOK_RETRY.scheduleToClose,
  retry: { initialInterval: '10 seconds', backoffCoefficient: WEBHOOK_RETRY.backoffCoefficient, maximumInterval: WEBHOOK_RETRY.maximumInterval },
});

const { failWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The first attempt, then the later ones (numbered on from 2) when it failed; throws when they ran out or were cancelled. */
async function attempts(input: WebhookDeliveryInput): Promise<'DELIVERED' | 'FAILED' | 'GONE'> {
  try {
    return await firstAttempt(input, 0);
  } catch (err) {
    if (isCancellation(err)) throw err;
  }
  await sleep(WEBHOOK_RETRY.initialInterval);
  return await laterAttempts(input, 1);
}

/** Why the attempts ended, as recorded when the delivery has no error of its own yet. */
function reason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * `hook/<endpointId>/<eventId>`: delivers one event to one endpoint, first by a local activity,
 * then, when that failed, by an activity retried by its retry policy until a 2xx answer, the endpoint's disabling or deletion, or 25 hours; then the
 * delivery is FAILED (also when an operator cancels the execution).
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'DELIVERED' | 'FAILED' | 'GONE'> {
  try {
    return await attempts(input);
  } catch (err) {
    const why = isCancellation(err) ? 'Delivery was cancelled' : `Attempts ran out: ${reason(err)}`;
    await CancellationScope.nonCancellable(() => failWebhookDelivery({ ...input, reason: why }));
    if (isCancellation(err)) throw err;
    return 'FAILED';
  }
}
