import { ApplicationFailure, Context } from '@temporalio/activity';
import { Delivery, EmailNotFoundError, type DeliveryOutcome } from '../src/sending/delivery';
import { PermanentMailError } from '../src/mailer/types';

/** Attempts after which a missing email record counts as never committed. */
const MISSING_RECORD_ATTEMPTS = 5;

/** Activities of the `email/<emailId>` delivery workflow. */
export function createDeliveryActivities(delivery: Delivery) {
  return {
    /** Renders and sends one email; transient failures are thrown for Temporal to retry, permanent ones end it. */
    async deliver(emailId: string): Promise<DeliveryOutcome> {
      try {
        return await delivery.deliver(emailId);
      } catch (err) {
        if (err instanceof EmailNotFoundError && Context.current().info.attempt >= MISSING_RECORD_ATTEMPTS) return 'MISSING';
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
  };
}
