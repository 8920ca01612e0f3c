import type { Request, RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { addToWindow } from '../../rate-limits/windows-queries';
import { clientAddress } from '../client-address';
import { rateLimited } from '../errors';
import '../request-context';

const WINDOW_SECONDS = 60;
/** Requests a process may count locally before it adds them to the shared counter. */
const BATCH = 25;
/** How long locally counted requests may wait before they are added to the shared counter. */
const SYNC_MS = 250;

/** One bucket's current window as this process sees it. */
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
 * Per-bucket fixed-window rate limit whose count lives in Postgres, so the budget holds
 * across every API process. Far from the limit a process adds its requests to the shared
 * count in small batches; once a window comes within a batch of the limit, every request
 * is counted in Postgres before it is let through, so the limit itself is exact.
 * Sets `RateLimit-*` headers on each response and answers 429 with `Retry-After`.
 */
function windowRateLimit(dataSource: DataSource, limitPerMinute: number, bucketOf: (req: Request) => string): RequestHandler {
  const windows = new Map<string, Window>();
  let currentStart = 0;

  const flush = async (bucket: string, window: Window) => {
    const increment = window.pending;
    window.pending = 0;
    window.syncedAt = Date.now();
    window.shared = await addToWindow(dataSource, bucket, window.start, WINDOW_SECONDS, increment);
  };

  /** Forgets the windows of past minutes, so that buckets seen once (client addresses) do not pile up. */
  const dropPastWindows = (start: number) => {
    if (start === currentStart) return;
    currentStart = start;
    for (const [bucket, window] of windows) if (window.start < start) windows.delete(bucket);
  };

  return async (req, res, next) => {
    const bucket = bucketOf(req);
    const nowSeconds = Date.now() / 1000;
    const start = Math.floor(nowSeconds / WINDOW_SECONDS) * WINDOW_SECONDS;
    dropPastWindows(start);
    let window = windows.get(bucket);
    if (!window || window.start !== start) {
      window = { start, shared: 0, pending: 0, syncedAt: 0, sync: undefined };
      windows.set(bucket, window);
    }
    window.pending += 1;
    const nearLimit = window.shared + window.pending + BATCH >= limitPerMinute;
    if (nearLimit || window.pending >= BATCH || Date.now() - window.syncedAt >= SYNC_MS) {
      const current = window;
      // Requests arriving during a sync wait for it, then join the next one.
      while (current.sync) await current.sync;
      if (current.pending > 0) {
        current.sync = flush(bucket, current).finally(() => (current.sync = undefined));
        await current.sync;
      }
    }
    const used = window.shared + window.pending;
    const reset = Math.max(1, Math.ceil(start + WINDOW_SECONDS - nowSeconds));
    res.setHeader('RateLimit-Limit', String(limitPerMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limitPerMinute - used)));
    res.setHeader('RateLimit-Reset', String(reset));
    if (used > limitPerMinute) {
      throw rateLimited(`Rate limit of ${limitPerMinute} requests per minute exceeded`, reset, `Wait ${reset} seconds before sending more requests.`);
    }
    next();
  };
}

/** The per-project limit of key-authenticated requests (`RATE_LIMIT_PER_MINUTE`). */
export function rateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  return windowRateLimit(dataSource, limitPerMinute, (req) => `project:${req.project!.id}`);
}

/** The per-client-address limit of the sign-in and account-email endpoints (`AUTH_RATE_LIMIT_PER_MINUTE`). */
export function addressRateLimit(dataSource: DataSource, limitPerMinute: number): RequestHandler {
  return windowRateLimit(dataSource, limitPerMinute, (req) => `auth-address:${clientAddress(req.ip)}`);
}
