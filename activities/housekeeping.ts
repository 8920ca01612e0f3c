import type { DataSource } from 'typeorm';
import { logger } from '../src/logger';
import { dropExpiredBacklog, MAIL_EVENT_BACKLOG_HOURS } from '../src/mail-events/mail-event-queries';
import {
  purgeExpiredAuthTokens,
  purgeExpiredIdempotencyKeys,
  purgeExpiredRateLimitWindows,
  purgeExpiredSessions,
} from '../src/orchestration/housekeeping-queries';
import { purgeOldEvents } from '../src/webhooks/webhooks-queries';

/** How many rows one housekeeping pass removed, per table. */
export interface PurgeResult {
  idempotencyKeys: number;
  rateLimitWindows: number;
  sessions: number;
  authTokens: number;
  /** Mail events whose email's send was never recorded, dropped from the backlog. */
  mailEventBacklog: number;
  /** Webhook events (with their deliveries) past their retention. */
  webhookEvents: number;
}

/** Webhook events one purge statement deletes at most. */
const WEBHOOK_PURGE_BATCH = 10_000;

/** Activities of the housekeeping workflow. */
export function createHousekeepingActivities(deps: { dataSource: DataSource }) {
  /** Drops the mail events that waited too long for their email, with a log line naming each. */
  const dropMailEvents = async (): Promise<number> => {
    const dropped = await dropExpiredBacklog(deps.dataSource.manager);
    for (const event of dropped) {
      logger.warn({ ...event, waitedHours: MAIL_EVENT_BACKLOG_HOURS }, 'dropped a mail event: no email with its emailId tag or message id was recorded in time');
    }
    return dropped.length;
  };

  /** Deletes the webhook events past their retention, a batch at a time so that no one statement grows large. */
  const purgeWebhookEvents = async (): Promise<number> => {
    let total = 0;
    let deleted: number;
    do {
      deleted = await purgeOldEvents(deps.dataSource.manager, WEBHOOK_PURGE_BATCH);
      total += deleted;
    } while (deleted === WEBHOOK_PURGE_BATCH);
    return total;
  };

  return {
    /**
     * Deletes request bookkeeping nobody can use any more: expired idempotency keys, rate
     * limit windows past their expiry, expired sessions, auth tokens a day past expiry,
     * mail events that waited in the backlog longer than MAIL_EVENT_BACKLOG_HOURS, and webhook
     * events (with their deliveries) past their retention.
     */
    async purgeExpiredRecords(): Promise<PurgeResult> {
      return {
        idempotencyKeys: await purgeExpiredIdempotencyKeys(deps.dataSource.manager),
        rateLimitWindows: await purgeExpiredRateLimitWindows(deps.dataSource.manager),
        sessions: await purgeExpiredSessions(deps.dataSource.manager),
        authTokens: await purgeExpiredAuthTokens(deps.dataSource.manager),
        mailEventBacklog: await dropMailEvents(),
        webhookEvents: await purgeWebhookEvents(),
      };
    },
  };
}
