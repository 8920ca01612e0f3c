import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { ApiError } from '../errors';
import '../request-context';

const WINDOW_SECONDS = 60;
/** Requests a process may count locally before it adds them to the shared counter. */
const BATCH = 25;
/** How long locally counted requests may wait before they are added to the shared counter. */
const SYNC_MS = 250;

/** One project's current window as this process sees it. */
interface Window {
  start: number;
  /** The shared count as of the last sync (every process's requests). */
  shared: number;
  /** Requests counted here since the last sync. */
  pending: number;
  syncedAt: number;
  sync: Promise<void> | undefined;
}

/**
 * Per-project fixed-window rate limit whose count lives in Postgres, so the budget holds
 * across every API process. Far from the limit a process adds its requests to the shared
 * count in small batches; once a window comes within a batch of the limit, every request
 * is counted in Postgres before it is let through, so the limit itself is exact.
 * Sets `RateLimit-*` headers on each response and answers 429 with `Retry-After`.
 */
export function rateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  const windows = new Map<string, Window>();

  const flush = async (projectId: string, window: Window) => {
    const increment = window.pending;
    window.pending = 0;
    window.syncedAt = Date.now();
    const rows: { count: number }[] = await dataSource.query(
      `INSERT INTO rate_limit_windows (project_id, window_start, count)
       VALUES ($1, to_timestamp($2), $3)
       ON CONFLICT (project_id, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
       RETURNING count`,
      [projectId, window.start, increment],
    );
    window.shared = rows[0].count;
  };

  return async (req, res, next) => {
    const projectId = req.project!.id;
    const nowSeconds = Date.now() / 1000;
    const start = Math.floor(nowSeconds / WINDOW_SECONDS) * WINDOW_SECONDS;
    let window = windows.get(projectId);
    if (!window || window.start !== start) {
      window = { start, shared: 0, pending: 0, syncedAt: 0, sync: undefined };
      windows.set(projectId, window);
    }
    window.pending += 1;
    const nearLimit = window.shared + window.pending + BATCH >= limitPerMinute;
    if (nearLimit || window.pending >= BATCH || Date.now() - window.syncedAt >= SYNC_MS) {
      const current = window;
      // Requests arriving during a sync wait for it, then join the next one.
      while (current.sync) await current.sync;
      if (current.pending > 0) {
        current.sync = flush(projectId, current).finally(() => (current.sync = undefined));
        await current.sync;
      }
    }
    const used = window.shared + window.pending;
    const reset = Math.max(1, Math.ceil(start + WINDOW_SECONDS - nowSeconds));
    res.setHeader('RateLimit-Limit', String(limitPerMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limitPerMinute - used)));
    res.setHeader('RateLimit-Reset', String(reset));
    if (used > limitPerMinute) {
      throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${limitPerMinute} requests per minute exceeded`, {
        headers: { 'Retry-After': String(reset) },
        suggestion: `Wait ${reset} seconds before sending more requests.`,
      });
    }
    next();
  };
}
