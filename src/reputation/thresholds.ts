/**
 * Sender reputation rules: the bounce and complaint rates of a project's emails over a
 * rolling window, and where they warn or suspend. Mailbox providers (and SES) throttle
 * or block senders well before 10% bounces or 0.5% complaints; these limits stop a
 * project from taking the shared sending reputation down with it.
 */

/** The rates count emails sent over the last this many days (or since a suspension was lifted, if later). */
export const REPUTATION_WINDOW_DAYS = 7;

/** Fewer emails than this in the window never warn nor suspend: a handful of bounces says little. */
export const MINIMUM_SENT = 100;

/** Share of sent emails that bounced permanently. */
export const BOUNCE_RATE = { warning: 0.05, suspend: 0.1 } as const;

/** Share of sent emails whose recipient marked them as spam. */
export const COMPLAINT_RATE = { warning: 0.001, suspend: 0.005 } as const;

/** `SUSPENDED` when the project is disabled; `WARNING` when a warning threshold is reached; else `OK`. */
export type ReputationStatus = 'OK' | 'WARNING' | 'SUSPENDED';

/** The counts of one window. */
export interface WindowCounts {
  sent: number;
  bounced: number;
  complained: number;
}

/** A count over `sent`, 0 when nothing was sent. */
export const rate = (count: number, sent: number) => (sent === 0 ? 0 : count / sent);

/** The status the counts give a project that is (or is not) disabled. Thresholds count when reached (>=). */
export function reputationStatus(counts: WindowCounts, disabled: boolean): ReputationStatus {
  if (disabled) return 'SUSPENDED';
  if (counts.sent < MINIMUM_SENT) return 'OK';
  const warns = rate(counts.bounced, counts.sent) >= BOUNCE_RATE.warning || rate(counts.complained, counts.sent) >= COMPLAINT_RATE.warning;
  return warns ? 'WARNING' : 'OK';
}

const percent = (value: number) => `${(value * 100).toFixed(value < 0.01 ? 2 : 1)}%`;

/**
 * Why the counts suspend a project, as one sentence for `disabled_reason` (naming every
 * rate at or above its suspension threshold), or undefined when they do not.
 */
export function suspensionReason(counts: WindowCounts, windowText: string): string | undefined {
  if (counts.sent < MINIMUM_SENT) return undefined;
  const causes = [
    { name: 'bounce', count: counts.bounced, limit: BOUNCE_RATE.suspend },
    { name: 'complaint', count: counts.complained, limit: COMPLAINT_RATE.suspend },
  ]
    .filter(({ count, limit }) => rate(count, counts.sent) >= limit)
    .map(({ name, count, limit }) =>
      `${name} rate ${percent(rate(count, counts.sent))} ${windowText} (${count} of ${counts.sent} emails) is at or above ${percent(limit)}`);
  return causes.length > 0 ? `Suspended automatically: ${causes.join('; ')}` : undefined;
}
