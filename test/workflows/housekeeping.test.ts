import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createHousekeepingActivities, type PurgeResult } from '../../activities/housekeeping';
import { HOUSEKEEPING_DAYS_PER_RUN, housekeeping } from '../../workflows/housekeeping';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { useTimeSkipping } from '../support/temporal';

describe('housekeeping workflow', () => {
  const temporal = useTimeSkipping();

  it('purges once a day and continues as new after 30 days, in seconds of wall time', async () => {
    const purgeExpiredRecords = jest.fn(async (): Promise<PurgeResult> => ({ idempotencyKeys: 0, rateLimitWindows: 0, sessions: 0, authTokens: 0, mailEventBacklog: 0, webhookEvents: 0 }));
    await temporal.withWorker({ purgeExpiredRecords }, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(housekeeping, { workflowId: `housekeeping-${randomUUID()}`, taskQueue });
      const started = Date.now();
      await temporal.env.sleep(`${HOUSEKEEPING_DAYS_PER_RUN} days`);
      await temporal.env.sleep('12 hours');
      console.log(`housekeeping: ${HOUSEKEEPING_DAYS_PER_RUN}.5 simulated days took ${Date.now() - started} ms of wall time`);

      // One pass at the start of each day 0..29 in the first run, then day 30 opens the second run.
      expect(purgeExpiredRecords).toHaveBeenCalledTimes(HOUSEKEEPING_DAYS_PER_RUN + 1);
      const latest = await handle.describe();
      expect(latest.runId).not.toBe(handle.firstExecutionRunId);
      expect(latest.status.name).toBe('RUNNING');
      const first = await temporal.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
      expect(first.status.name).toBe('CONTINUED_AS_NEW');
      await handle.terminate('test finished');
    });
  });

  it('keeps running when a pass fails after its retries and tries again the next day', async () => {
    let attempts = 0;
    const purgeExpiredRecords = jest.fn(async (): Promise<PurgeResult> => {
      if (++attempts <= 5) throw new Error('database unavailable');
      return { idempotencyKeys: 1, rateLimitWindows: 0, sessions: 0, authTokens: 0, mailEventBacklog: 0, webhookEvents: 0 };
    });
    await temporal.withWorker({ purgeExpiredRecords }, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(housekeeping, { workflowId: `housekeeping-${randomUUID()}`, taskQueue });
      await temporal.env.sleep('1 day');
      await temporal.env.sleep('1 hour');
      // Five failed attempts on day 0 (the retry policy's maximum), one successful pass on day 1.
      expect(purgeExpiredRecords).toHaveBeenCalledTimes(6);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test finished');
    });
  });
});

describe('purgeExpiredRecords activity', () => {
  let database: ScratchDatabase;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'housekeeping');
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('deletes exactly the expired keys, expired rate windows (an hour-long one kept), expired sessions, day-old expired tokens and mail events kept over 24 hours', async () => {
    const db = database.dataSource;
    const [{ id: projectId }] = await db.query(`INSERT INTO projects (name) VALUES ('Housekeeping') RETURNING id`);
    const [{ id: userId }] = await db.query(
      `INSERT INTO users (email, password_hash) VALUES ('keeper@example.com', 'x') RETURNING id`,
    );
    await db.query(
      `INSERT INTO idempotency_keys (project_id, key, method, path, expires_at) VALUES
         ($1, 'expired', 'POST', '/v1/send', now() - interval '1 minute'),
         ($1, 'live', 'POST', '/v1/send', now() + interval '1 hour')`,
      [projectId],
    );
    await db.query(
      `INSERT INTO rate_limit_windows (bucket, window_start, count, expires_at) VALUES
         ('project:' || $1, date_trunc('minute', now()) - interval '2 minutes', 5, date_trunc('minute', now())),
         ('project:' || $1, date_trunc('minute', now()), 5, date_trunc('minute', now()) + interval '2 minutes'),
         ('account-emails:x', date_trunc('hour', now()) - interval '1 hour', 5, date_trunc('hour', now()) + interval '1 hour')`,
      [projectId],
    );
    await db.query(
      `INSERT INTO sessions (user_id, token_hash, expires_at) VALUES
         ($1, 'expired', now() - interval '1 minute'),
         ($1, 'live', now() + interval '1 day')`,
      [userId],
    );
    await db.query(
      `INSERT INTO auth_tokens (user_id, kind, token_hash, expires_at) VALUES
         ($1, 'VERIFY_EMAIL', 'expired-25h', now() - interval '25 hours'),
         ($1, 'PASSWORD_RESET', 'expired-23h', now() - interval '23 hours'),
         ($1, 'PASSWORD_RESET', 'live', now() + interval '1 hour')`,
      [userId],
    );
    await db.query(
      `INSERT INTO mail_event_backlog (notification_id, message_id, event_type, record, received_at) VALUES
         ('waited-25h', 'm-1', 'Delivery', '{}', now() - interval '25 hours'),
         ('waited-23h', 'm-2', 'Delivery', '{}', now() - interval '23 hours')`,
    );

    const { purgeExpiredRecords } = createHousekeepingActivities({ dataSource: db });
    const purged = await new MockActivityEnvironment().run(purgeExpiredRecords);

    expect(purged).toEqual({ idempotencyKeys: 1, rateLimitWindows: 1, sessions: 1, authTokens: 1, mailEventBacklog: 1, webhookEvents: 0 });
    const column = async (sql: string) => ((await db.query(sql)) as { v: string }[]).map((row) => row.v);
    expect(await column(`SELECT key AS v FROM idempotency_keys ORDER BY key`)).toEqual(['live']);
    expect(await column(`SELECT (expires_at > now())::text AS v FROM rate_limit_windows`)).toEqual(['true', 'true']);
    expect(await column(`SELECT token_hash AS v FROM sessions ORDER BY token_hash`)).toEqual(['live']);
    expect(await column(`SELECT token_hash AS v FROM auth_tokens ORDER BY token_hash`)).toEqual(['expired-23h', 'live']);
    expect(await column(`SELECT notification_id AS v FROM mail_event_backlog`)).toEqual(['waited-23h']);
    expect(await new MockActivityEnvironment().run(purgeExpiredRecords)).toEqual({
      idempotencyKeys: 0,
      rateLimitWindows: 0,
      sessions: 0,
      authTokens: 0,
      mailEventBacklog: 0,
      webhookEvents: 0,
    });
  });
});

