import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createDeliveryActivities } from '../activities/delivery';

type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

/** Throttling and transient failures back off up to 5 minutes apart, for about an hour in all. */
const { deliver } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 16 },
});

const { markEmailFailed } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 20 },
});

/** The reason an activity failed for good, as recorded on the email. */
function reason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * `email/<emailId>`: renders and delivers one email. When retries run out, or an operator
 * cancels the execution, the email is marked FAILED with the reason (unless it was sent).
 */
export async function deliverEmail(emailId: string): Promise<string> {
  try {
    return await deliver(emailId);
  } catch (err) {
    const why = isCancellation(err) ? 'Delivery was cancelled' : reason(err);
    await CancellationScope.nonCancellable(() => markEmailFailed(emailId, why));
    throw err;
  }
}
