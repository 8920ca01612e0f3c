import type { EntityManager } from 'typeorm';

/** The deletes of the housekeeping workflow (activities/housekeeping.ts): request bookkeeping past its expiry. */

/** Runs one DELETE and answers how many rows it removed (TypeORM answers a DELETE on Postgres with [rows, affected row count]). */
async function deleteRows(manager: EntityManager, sql: string): Promise<number> {
  const [, affected] = (await manager.query(sql)) as [unknown, number];
  return affected;
}

/** Deletes the idempotency keys past their expiry; answers how many. */
export function purgeExpiredIdempotencyKeys(manager: EntityManager): Promise<number> {
  return deleteRows(manager, `DELETE FROM idempotency_keys WHERE expires_at < now()`);
}

/** Deletes the rate limit windows past their expiry; answers how many. */
export function purgeExpiredRateLimitWindows(manager: EntityManager): Promise<number> {
  return deleteRows(manager, `DELETE FROM rate_limit_windows WHERE expires_at < now()`);
}

/** Deletes the sessions past their expiry; answers how many. */
export function purgeExpiredSessions(manager: EntityManager): Promise<number> {
  return deleteRows(manager, `DELETE FROM sessions WHERE expires_at < now()`);
}

/** Deletes the auth tokens a day past their expiry; answers how many. */
export function purgeExpiredAuthTokens(manager: EntityManager): Promise<number> {
  return deleteRows(manager, `DELETE FROM auth_tokens WHERE expires_at < now() - interval '1 day'`);
}
