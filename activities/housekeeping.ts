import type { DataSource } from 'typeorm';
import { logger } from '../src/logger';
import { dropExpiredBacklog, MAIL_EVENT_BACKLOG_HOURS } from '../src/mail-events/mail-event-queries';

/** How many rows one housekeeping pass removed, per table. */
export interface PurgeResult {
  idempotencyKeys: number;
  rateLimitWindows: number;
  sessions: number;
  authTokens: number;
  /** Mail events whose email's send was never recorded, dropped from the backlog. */
  mailEventBacklog: number;
}

/** Activities of the housekeeping workflow. */
export function createHousekeepingActivities(deps: { dataSource: DataSource }) {
  // TypeORM answers a DELETE on Postgres with [rows, affected row count].
  const purge = async (sql: string): Promise<number> => {
    const [, affected] = (await deps.dataSource.query(sql)) as [unknown, number];
    return affected;
  };

  /** Drops the mail events that waited too long for their email, with a log line naming each. */
  const dropMailEvents = async (): Promise<number> => {
    const dropped = await dropExpiredBacklog(deps.dataSource.manager);
    for (const event of dropped) {
      logger.warn({ ...event, waitedHours: MAIL_EVENT_BACKLOG_HOURS }, 'dropped a mail event: no email with its emailId tag or message id was recorded in time');
    }
    return dropped.length;
  };

  return {
    /**
     * Deletes request bookkeeping nobody can use any more: expired idempotency keys, rate
     * limit windows past their expiry, expired sessions, auth tokens a day past expiry,
     * and mail events that waited in the backlog longer than MAIL_EVENT_BACKLOG_HOURS.
     */
    async purgeExpiredRecords(): Promise<PurgeResult> {
      return {
        idempotencyKeys: await purge(`DELETE FROM idempotency_keys WHERE expires_at < now()`),
        rateLimitWindows: await purge(`DELETE FROM rate_limit_windows WHERE expires_at < now()`),
        sessions: await purge(`DELETE FROM sessions WHERE expires_at < now()`),
        authTokens: await purge(`DELETE FROM auth_tokens WHERE expires_at < now() - interval '1 day'`),
        mailEventBacklog: await dropMailEvents(),
      };
    },
  };
}
