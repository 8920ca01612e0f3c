import type { DataSource } from 'typeorm';

/** How many rows one housekeeping pass removed, per table. */
export interface PurgeResult {
  idempotencyKeys: number;
  rateLimitWindows: number;
  sessions: number;
  authTokens: number;
}

/** Activities of the housekeeping workflow. */
export function createHousekeepingActivities(deps: { dataSource: DataSource }) {
  // TypeORM answers a DELETE on Postgres with [rows, affected row count].
  const purge = async (sql: string): Promise<number> => {
    const [, affected] = (await deps.dataSource.query(sql)) as [unknown, number];
    return affected;
  };

  return {
    /**
     * Deletes request bookkeeping nobody can use any more: expired idempotency keys, rate
     * limit windows older than 10 minutes, expired sessions, and auth tokens a day past expiry.
     */
    async purgeExpiredRecords(): Promise<PurgeResult> {
      return {
        idempotencyKeys: await purge(`DELETE FROM idempotency_keys WHERE expires_at < now()`),
        rateLimitWindows: await purge(`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '10 minutes'`),
        sessions: await purge(`DELETE FROM sessions WHERE expires_at < now()`),
        authTokens: await purge(`DELETE FROM auth_tokens WHERE expires_at < now() - interval '1 day'`),
      };
    },
  };
}
