import { ActivityFailure, ApplicationFailure, CancellationScope, condition, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createDeliveryActivities } from '../activities/delivery';
import { scheduledEmailCancelled } from './shared';

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

/** Database work at a scheduled email's time (or its cancel), retried until the database answers. */
const { releaseScheduledEmail, cancelScheduledEmail } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * How a delivery was started. Executions started before scheduled sends have none, and take
 * the path they always took: an absent `scheduledAt` issues exactly the commands it issued then.
 */
export interface DeliveryOptions {
  /** ISO date-time to wait for on a durable timer before the email is released and sent. */
  scheduledAt?: string;
}

/** The reason an activity failed for good, as recorded on the email. */
function reason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * `email/<emailId>`: renders and delivers one email. A scheduled email waits for its time on a
 * durable timer, then is released (SCHEDULED -> QUEUED, the cap checked again) unless it was
 * cancelled meanwhile. When retries run out, or an operator cancels the execution, the email
 * is marked FAILED with the reason (unless it was sent).
 */
export async function deliverEmail(emailId: string, options: DeliveryOptions = {}): Promise<string> {
  if (options.scheduledAt !== undefined) {
    const status = await waitForSchedule(emailId, options.scheduledAt);
    if (status !== 'QUEUED') return status;
  }
  try {
    return await deliver(emailId);
  } catch (err) {
    const why = isCancellation(err) ? 'Delivery was cancelled' : reason(err);
    await CancellationScope.nonCancellable(() => markEmailFailed(emailId, why));
    throw err;
  }
}

/**
 * Waits until `scheduledAt` on a durable timer, then releases the email; answers its status
 * after (`QUEUED`: to send). The API's cancel (a signal, once the email is CANCELLED) ends the
 * wait at once; an operator's cancel of the execution during the wait (Temporal UI) too. Either
 * way the email is left CANCELLED.
 */
async function waitForSchedule(emailId: string, scheduledAt: string): Promise<string> {
  let cancelled = false;
  setHandler(scheduledEmailCancelled, () => void (cancelled = true));
  try {
    const wait = Date.parse(scheduledAt) - Date.now();
    if (wait > 0) await condition(() => cancelled, wait);
    if (!cancelled) return await releaseScheduledEmail(emailId);
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => cancelScheduledEmail(emailId));
    throw err;
  }
  await cancelScheduledEmail(emailId);
  return 'CANCELLED';
}
