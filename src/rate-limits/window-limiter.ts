import type { DataSource } from 'typeorm';
import { addToWindow } from './windows-queries';

const WINDOW_SECONDS = 60;
/**
 * Requests a process may count locally before it adds them to the shared counter: a thousandth of
 * the limit, at least 25. What other processes do not see yet stays under that share of the
 * budget, and a high limit costs no more statements than a low one.
 */
const batchFor = (limitPerMinute: number) => Math.max(25, Math.floor(limitPerMinute / 1000));
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

/** What counting one request answers: the budget left in the window and whether the request is over it. */
export interface Counted {
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  limited: boolean;
}

/**
 * Per-bucket fixed-window limit of requests per minute whose count lives in Postgres, so the
 * budget holds across every process that counts the same bucket (API processes, the SMTP
 * relay). Far from the limit a process adds its requests to the shared count in batches (a
 * thousandth of the limit, at least 25) and at least every 250 ms while requests come; once a
 * window comes within a batch of the limit, every request is counted in Postgres before it is
 * let through, so the limit itself is exact.
 */
export class WindowLimiter {
  private readonly windows = new Map<string, Window>();
  private currentStart = 0;
  private readonly batch: number;

  constructor(
    private readonly dataSource: DataSource,
    readonly limitPerMinute: number,
  ) {
    this.batch = batchFor(limitPerMinute);
  }

  /** Counts one request in a bucket's current window. */
  async count(bucket: string): Promise<Counted> {
    const nowSeconds = Date.now() / 1000;
    const start = Math.floor(nowSeconds / WINDOW_SECONDS) * WINDOW_SECONDS;
    this.dropPastWindows(start);
    let window = this.windows.get(bucket);
    if (!window || window.start !== start) {
      window = { start, shared: 0, pending: 0, syncedAt: 0, sync: undefined };
      this.windows.set(bucket, window);
    }
    window.pending += 1;
    const nearLimit = window.shared + window.pending + this.batch >= this.limitPerMinute;
    if (nearLimit || window.pending >= this.batch || Date.now() - window.syncedAt >= SYNC_MS) {
      const current = window;
      // Requests arriving during a sync wait for it, then join the next one.
      while (current.sync) await current.sync;
      if (current.pending > 0) {
        current.sync = this.flush(bucket, current).finally(() => (current.sync = undefined));
        await current.sync;
      }
    }
    const used = window.shared + window.pending;
    return {
      limit: this.limitPerMinute,
      remaining: Math.max(0, this.limitPerMinute - used),
      reset: Math.max(1, Math.ceil(start + WINDOW_SECONDS - nowSeconds)),
      limited: used > this.limitPerMinute,
    };
  }

  private async flush(bucket: string, window: Window): Promise<void> {
    const increment = window.pending;
    window.pending = 0;
    window.syncedAt = Date.now();
    window.shared = await addToWindow(this.dataSource, bucket, window.start, WINDOW_SECONDS, increment);
  }

  /** Forgets the windows of past minutes, so that buckets seen once (client addresses) do not pile up. */
  private dropPastWindows(start: number): void {
    if (start === this.currentStart) return;
    this.currentStart = start;
    for (const [bucket, window] of this.windows) if (window.start < start) this.windows.delete(bucket);
  }
}

/** The bucket of a project's key-authenticated requests (`RATE_LIMIT_PER_MINUTE`), shared by the API and the SMTP relay. */
export const projectBucket = (projectId: string) => `project:${projectId}`;
