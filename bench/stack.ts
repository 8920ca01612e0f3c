import { composeCore } from '../src/composition';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createActivities, type ActivityDeps } from '../activities';
import { createApp } from '../src/app';
import { loadConfig, type Config } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { logger } from '../src/logger';
import { listen } from '../src/runtime/http-server';
import { connectTemporal } from '../src/orchestration/client';
import { routeTemporalLogs } from '../src/orchestration/logging';
import { HERALD_SEARCH_ATTRIBUTES } from '../src/orchestration/search-attributes';
import { createWorker } from '../src/orchestration/worker';
import { ensureSendLanes } from '../src/orchestration/send-lanes';
import { findTemporalCli } from '../temporal/cli';
import { startDevServer } from '../temporal/dev-server';
import { findVisibilityIndexTool } from '../temporal/visibility-indexes';
import { startTestServer } from '../temporal/test-server';
import { freePort } from '../test/support/ports';
import type { Scratch } from './support';

/** Herald running for a bench: the API on a free port. */
export interface BenchApiStack {
  url: string;
  config: Config;
  dataSource: DataSource;
  /** The environment the configuration was read from, for a worker started in a process of its own. */
  env: Record<string, string | undefined>;
}

/** Herald running for a bench: the API on a free port and a worker in this process. */
export interface BenchStack extends BenchApiStack {
  worker: Worker;
}

/** Where a bench's Temporal runs: `external (<address>)` under BENCH_TEMPORAL_ADDRESS, else the embedded dev server. */
export function temporalKind(): string {
  const external = process.env.BENCH_TEMPORAL_ADDRESS;
  return external ? `external (${external})` : 'embedded dev server';
}

/**
 * The Temporal server at BENCH_TEMPORAL_ADDRESS when set (the run gets a task queue of its own, so
 * that it shares the server with nothing else it would poll), else the Temporal CLI dev server
 * when a CLI can be had, else the Java test server.
 */
async function startTemporal(scratch: Scratch): Promise<{ address: string; taskQueue?: string }> {
  const external = process.env.BENCH_TEMPORAL_ADDRESS;
  if (external) return { address: external, taskQueue: `herald-bench-${randomBytes(4).toString('hex')}` };
  return { address: await startEmbeddedTemporal(scratch) };
}

/** The Temporal CLI dev server when a CLI can be had, else the Java test server. */
async function startEmbeddedTemporal(scratch: Scratch): Promise<string> {
  const port = await freePort();
  const cliPath = await findTemporalCli({ install: false });
  if (cliPath) {
    // BENCH_SQLITE: `default` runs the dev server with SQLite's own settings (the baseline of
    // Herald's pragmas), a comma-separated list with those pragmas instead of Herald's.
    const chosen = process.env.BENCH_SQLITE;
    const sqlitePragmas = chosen === 'default' ? [] : chosen ? chosen.split(',') : undefined;
    // BENCH_TEMPORAL_CONFIG: dynamic config values (a JSON object) over Herald's own, to weigh a setting.
    const extra = process.env.BENCH_TEMPORAL_CONFIG;
    const dynamicConfig = extra ? (JSON.parse(extra) as Record<string, string | number | boolean>) : undefined;
    // BENCH_VISIBILITY_INDEXES=all: the dev server keeps all its visibility indexes (the baseline of dropping the unused ones).
    const visibilityIndexTool = process.env.BENCH_VISIBILITY_INDEXES === 'all' ? undefined : await findVisibilityIndexTool();
    // Herald's search attributes, as `npm start` registers them (src/runtime/infrastructure.ts).
    const dev = await startDevServer({
      cliPath,
      dataDir: scratch.root,
      port,
      uiPort: await freePort(),
      namespace: 'default',
      searchAttributes: HERALD_SEARCH_ATTRIBUTES,
      sqlitePragmas,
      dynamicConfig,
      visibilityIndexTool,
    });
    scratch.onCleanup(dev.stop);
    return dev.address;
  }
  const server = await startTestServer(port);
  scratch.onCleanup(server.stop);
  return `127.0.0.1:${port}`;
}

/**
 * Starts Temporal, a worker and the API against the scratch database, as `npm start`
 * does, with `env` overriding configuration; everything stops with the scratch cleanup.
 * With `{ worker: false }` no worker runs here: the bench starts its own from `env`.
 */
export function startBenchStack(scratch: Scratch, env?: Record<string, string>, poolSize?: number): Promise<BenchStack>;
export function startBenchStack(scratch: Scratch, env: Record<string, string>, poolSize: number | undefined, options: { worker: false }): Promise<BenchApiStack>;
export async function startBenchStack(
  scratch: Scratch,
  env: Record<string, string> = {},
  poolSize?: number,
  options: { worker?: false } = {},
): Promise<BenchApiStack & { worker?: Worker }> {
  const { address, taskQueue } = await startTemporal(scratch);
  console.log(`Temporal: ${temporalKind()}`);
  const stackEnv = {
    ...process.env,
    DATABASE_URL: scratch.databaseUrl,
    DATA_DIR: path.join(scratch.root, 'data'),
    TEMPORAL_ADDRESS: address,
    ...(process.env.BENCH_TEMPORAL_NAMESPACE ? { TEMPORAL_NAMESPACE: process.env.BENCH_TEMPORAL_NAMESPACE } : {}),
    ...(taskQueue ? { TEMPORAL_TASK_QUEUE: taskQueue } : {}),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...env,
  };
  const config = loadConfig(stackEnv);
  logger.level = config.logLevel;
  const dataSource = await openDatabase(scratch.databaseUrl, poolSize);
  scratch.onCleanup(() => dataSource.destroy());
  const temporal = await connectTemporal(address, config.temporalNamespace);
  scratch.onCleanup(temporal.close);
  const core = composeCore(config, dataSource, temporal.client);
  scratch.onCleanup(async () => core.mailer.close?.());

  const worker = options.worker === false ? undefined : await startWorker(scratch, address, config, core);
  if (worker) await ensureSendLanes(temporal.client, config.taskQueue);
  const api = await listen(createApp(core), 0);
  scratch.onCleanup(api.close);
  return { url: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`, config, dataSource, env: stackEnv, worker };
}

/** A worker in this process, polling until the scratch cleanup shuts it down. */
async function startWorker(scratch: Scratch, address: string, config: Config, deps: ActivityDeps): Promise<Worker> {
  routeTemporalLogs();
  const connection = await NativeConnection.connect({ address });
  scratch.onCleanup(() => connection.close());
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    activities: createActivities(deps),
  });
  const running = worker.run();
  scratch.onCleanup(async () => {
    worker.shutdown();
    await running;
  });
  return worker;
}
