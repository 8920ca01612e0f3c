/**
 * Polls `read` every 100 ms until `done` accepts what it answers, and answers that; throws after
 * `timeoutMs`, naming `what`. A read that throws (a server restarting, a connection reset) is
 * tried again until the deadline, then its error is thrown.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what = 'a condition', timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: { value: T } | { error: unknown };
    try {
      const value = await read();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() > deadline) {
      if ('error' in last) throw last.error;
      throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last.value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `check` until it answers something truthy, and answers that; throws after `timeoutMs`, naming `what`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs?: number): Promise<T> {
  return (await until(check, Boolean, what, timeoutMs))!;
}

/**
 * Waits for the next clock minute when fewer than `seconds` are left in this one, so that what a
 * test counts per clock minute (Herald's rate limits) falls into one window.
 */
export async function withinOneMinute(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 200));
}
