import type { DataSource, EntityManager } from 'typeorm';

type Db = DataSource | EntityManager;

/** A used Idempotency-Key as stored: the request that claimed it and, once it ran, its status. */
export interface StoredKey {
  method: string;
  path: string;
  status_code: number | null;
  created_at: Date;
}

/**
 * Claims a key for a request atomically, unless a claim within its TTL (`ttlHours`) holds it;
 * an expired claim is taken over. False when the key is held.
 */
export async function claimKey(db: Db, projectId: string, key: string, method: string, path: string, ttlHours: number): Promise<boolean> {
  const claimed: { created_at: Date }[] = await db.query(
    `INSERT INTO idempotency_keys (project_id, key, method, path, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5))
     ON CONFLICT (project_id, key) DO UPDATE
       SET method = EXCLUDED.method, path = EXCLUDED.path, status_code = NULL,
           created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at <= now()
     RETURNING created_at`,
    [projectId, key, method, path, ttlHours],
  );
  return claimed.length > 0;
}

/** The stored claim of a key, if any. */
export async function findStoredKey(db: Db, projectId: string, key: string): Promise<StoredKey | undefined> {
  const [stored]: StoredKey[] = await db.query(
    'SELECT method, path, status_code, created_at FROM idempotency_keys WHERE project_id = $1 AND key = $2',
    [projectId, key],
  );
  return stored;
}

/** Gives a key back, so it may be used again. */
export async function releaseKey(db: Db, projectId: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE project_id = $1 AND key = $2', [projectId, key]);
}

/** Records the status the request that claimed a key answered with. */
export async function recordKeyStatus(db: Db, projectId: string, key: string, statusCode: number): Promise<void> {
  await db.query('UPDATE idempotency_keys SET status_code = $3 WHERE project_id = $1 AND key = $2', [projectId, key, statusCode]);
}
