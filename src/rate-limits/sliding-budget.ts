import type { DataSource } from 'typeorm';
import { addToWindow, windowCount } from './windows-queries';

/** At most `limit` events per `seconds` for each key of a kind (`name`), such as failed sign-ins per account email. */
export interface Budget {
  name: string;
  limit: number;
  seconds: number;
}

/** The outcome of `take`: the event may happen (and can be given back), or must wait `retryAfter` seconds. */
export type Taken = { taken: true; giveBack: () => Promise<void> } | { taken: false; retryAfter: number };

/**
 * Takes one event from a key's budget, counted in Postgres so that it holds across API
 * processes. The count over the last `seconds` is estimated from two fixed windows: the
 * current one plus the previous one weighted by the share of it still inside the span, so
 * no burst fits at a window boundary. The event is counted before the check, so concurrent
 * takers never overshoot; a refused one is given back at once.
 */
export async function take(db: DataSource, budget: Budget, key: string, now = Date.now()): Promise<Taken> {
  const nowSeconds = now / 1000;
  const start = Math.floor(nowSeconds / budget.seconds) * budget.seconds;
  const bucket = `${budget.name}:${key}`;
  const current = await addToWindow(db, bucket, start, budget.seconds, 1);
  const previous = await windowCount(db, bucket, start - budget.seconds);
  const elapsed = (nowSeconds - start) / budget.seconds;
  const giveBack = async () => {
    await addToWindow(db, bucket, start, budget.seconds, -1);
  };
  if (current + previous * (1 - elapsed) <= budget.limit) return { taken: true, giveBack };
  await giveBack();
  return { taken: false, retryAfter: secondsUntilRoom(budget, current - 1, previous, elapsed) };
}

/**
 * Seconds until one more event fits, given the counts of the current and previous windows
 * and the elapsed share of the current one: the previous window's weight falls as time
 * passes; when the current window alone is full, its own weight must fall in the next one.
 */
export function secondsUntilRoom(budget: Budget, current: number, previous: number, elapsed: number): number {
  const room = budget.limit - current - 1;
  const share = room >= 0
    ? 1 - room / previous - elapsed
    : 1 - elapsed + 1 - (budget.limit - 1) / current;
  return Math.max(1, Math.ceil(share * budget.seconds));
}
