import type { EmailStatus } from '../entities/email';

/** The road a sent email travels; mail events only ever move it further along. */
export const EMAIL_PROGRESS: readonly EmailStatus[] = ['QUEUED', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED'];

/**
 * The status an email has after an event that would put it at `reached`. Along the road
 * it only moves forward, so late or out-of-order events never take it back; FAILED is
 * reached only from QUEUED or SENT (the message never left); an email that FAILED, was
 * SUPPRESSED or SKIPPED keeps that status.
 */
export function nextStatus(current: EmailStatus, reached: EmailStatus): EmailStatus {
  const at = EMAIL_PROGRESS.indexOf(current);
  if (at < 0) return current;
  if (reached === 'FAILED') return at <= EMAIL_PROGRESS.indexOf('SENT') ? 'FAILED' : current;
  return EMAIL_PROGRESS.indexOf(reached) > at ? reached : current;
}
