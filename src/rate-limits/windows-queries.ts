import type { DataSource, EntityManager } from 'typeorm';

type Db = DataSource | EntityManager;

/**
 * Adds `increment` (negative to give back) to the count of a bucket's fixed window, which
 * starts at `start` (Unix seconds) and lasts `seconds`, and answers the window's new count.
 * One statement, so concurrent API processes never lose a count. A row is kept through the
 * next window, which reads it as its previous one.
 */
export async function addToWindow(db: Db, bucket: string, start: number, seconds: number, increment: number): Promise<number> {
  const rows: { count: number }[] = await db.query(
    `INSERT INTO rate_limit_windows (bucket, window_start, count, expires_at)
     VALUES ($1, to_timestamp($2), $3, to_timestamp($2 + 2 * $4))
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
     RETURNING count`,
    [bucket, start, increment, seconds],
  );
  return rows[0].count;
}

/** The count of a bucket's window that starts at `start` (Unix seconds); 0 when nothing was counted. */
export async function windowCount(db: Db, bucket: string, start: number): Promise<number> {
  const rows: { count: number }[] = await db.query(
    'SELECT count FROM rate_limit_windows WHERE bucket = $1 AND window_start = to_timestamp($2)',
    [bucket, start],
  );
  return rows[0]?.count ?? 0;
}
