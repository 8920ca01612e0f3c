import { BillingLimitExceededError } from '../billing/limits';
import { ApiError } from '../http/errors';

/** An SMTP reply for a refused command: smtp-server answers `responseCode` and the message. */
export interface SmtpReply extends Error {
  responseCode: number;
}

/** A refusal with its SMTP reply code and human text. */
export function smtpReply(responseCode: number, message: string): SmtpReply {
  return Object.assign(new Error(message), { responseCode });
}

/** Whether an error is an SMTP reply (it carries its reply code). */
export function isSmtpReply(err: unknown): err is SmtpReply {
  return err instanceof Error && typeof (err as Partial<SmtpReply>).responseCode === 'number';
}

/** Sending refused by a limit that passes (rate limit, unavailable service): the client keeps the message and tries again. */
export const tryLater = (message: string) => smtpReply(451, message);

/** The reply to a send the shared path refused, by what refused it; an error that is not a refusal: 451, try again. */
export function replyForSendError(err: unknown): SmtpReply {
  if (err instanceof BillingLimitExceededError) return smtpReply(452, `${err.message} Raise the cap or wait for the next period; the message is not sent.`);
  if (!(err instanceof ApiError)) return tryLater('Herald could not take the message right now; try again shortly');
  const { statusCode, code, message, options } = err;
  if (code === 'VALIDATION_ERROR') {
    const errors = options.errors ?? [];
    const text = errors.map((e) => `${e.field}: ${e.message}`).join('; ') || message;
    if (errors.some((e) => e.field.startsWith('attachments') && e.code === 'too_big')) return smtpReply(552, `Message refused: ${text}`);
    if (errors.some((e) => e.field === 'from' || e.field === 'reply')) return smtpReply(553, `Sender refused: ${text}`);
    return smtpReply(554, `Message refused: ${text}`);
  }
  if (statusCode === 403 && options.details?.domain !== undefined) return smtpReply(550, message);
  if (statusCode === 403) return smtpReply(554, message);
  if (statusCode === 429 || statusCode >= 500) return tryLater(message);
  return smtpReply(554, message);
}
