import { ApplicationFailure, Context } from '@temporalio/activity';
import { Delivery, EmailNotFoundError, type DeliveryOutcome } from '../src/sending/delivery';
import type { EmailStatus } from '../src/entities/email';
import { PermanentMailError } from '../src/mailer/types';

/**
 * Attempts after which a missing email record counts as never committed: with retries 1, 2, 4,
 * ... seconds apart, about a minute after the first. The request that stores the record starts
 * its workflows before it commits, and a batch of 1,000 recipients takes seconds to start them all.
 */
const MISSING_RECORD_ATTEMPTS = 7;

/** Runs `work` on an email record; a record still missing after MISSING_RECORD_ATTEMPTS attempts answers 'MISSING'. */
async function onRecord<T>(work: () => Promise<T>): Promise<T | 'MISSING'> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof EmailNotFoundError && Context.current().info.attempt >= MISSING_RECORD_ATTEMPTS) return 'MISSING';
    throw err;
  }
}

/** Activities of the `email/<emailId>` delivery workflow. */
export function createDeliveryActivities(delivery: Delivery) {
  return {
    /** Renders and sends one email; transient failures are thrown for Temporal to retry, permanent ones end it. */
    async deliver(emailId: string): Promise<DeliveryOutcome> {
      try {
        return await onRecord(() => delivery.deliver(emailId));
      } catch (err) {
        if (err instanceof PermanentMailError) {
          throw ApplicationFailure.create({ message: err.message, type: 'PermanentMailError', nonRetryable: true });
        }
        throw err;
      }
    },

    /** Marks an email FAILED once its delivery gave up. */
    async markEmailFailed(emailId: string, reason: string): Promise<void> {
      await delivery.fail(emailId, reason);
    },

    /** At a scheduled email's time: SCHEDULED -> QUEUED with the cap checked again; answers its status after. */
    async releaseScheduledEmail(emailId: string): Promise<EmailStatus | 'MISSING'> {
      return onRecord(() => delivery.release(emailId));
    },

    /** Marks a scheduled email CANCELLED when its delivery is cancelled before its time. */
    async cancelScheduledEmail(emailId: string): Promise<void> {
      await delivery.cancelScheduled(emailId);
    },
  };
}
