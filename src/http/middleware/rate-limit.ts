import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { ApiError } from '../errors';
import '../request-context';

const WINDOW_SECONDS = 60;

/**
 * Per-project fixed-window rate limit counted in Postgres, so the budget holds across
 * every API process. Sets `RateLimit-*` headers on each response and answers 429 with
 * `Retry-After` once the window's budget is spent.
 */
export function rateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  return async (req, res, next) => {
    const projectId = req.project!.id;
    const nowSeconds = Date.now() / 1000;
    const windowStart = Math.floor(nowSeconds / WINDOW_SECONDS) * WINDOW_SECONDS;
    const rows: { count: number }[] = await dataSource.query(
      `INSERT INTO rate_limit_windows (project_id, window_start, count)
       VALUES ($1, to_timestamp($2), 1)
       ON CONFLICT (project_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
       RETURNING count`,
      [projectId, windowStart],
    );
    const count = rows[0].count;
    const reset = Math.max(1, Math.ceil(windowStart + WINDOW_SECONDS - nowSeconds));
    res.setHeader('RateLimit-Limit', String(limitPerMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limitPerMinute - count)));
    res.setHeader('RateLimit-Reset', String(reset));
    if (count > limitPerMinute) {
      throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${limitPerMinute} requests per minute exceeded`, {
        headers: { 'Retry-After': String(reset) },
        suggestion: `Wait ${reset} seconds before sending more requests.`,
      });
    }
    next();
  };
}
