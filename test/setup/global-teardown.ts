/** Stops what the global setup started. */
export default async function globalTeardown(): Promise<void> {
  const teardown = (globalThis as Record<string, unknown>).__heraldTeardown as (() => Promise<void>) | undefined;
  await teardown?.();
}
