/**
 * The worker of the campaign and workflow benches, in a process of its own so that the bench can read
 * its memory and kill it: configured from the environment the bench passes, as
 * `npm run start:worker` is, and reporting its resident memory to the bench over IPC.
 *
 * With `--no-workflow-cache` it keeps no workflows between tasks: the Java test server does
 * not move a dead worker's sticky workflow tasks back to the shared queue as Temporal does.
 * With `--workflow-bundle=<path>` it runs that prebuilt workflow bundle instead of bundling
 * the workflows at start.
 */
import { composeCore } from '../src/composition';
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { logger } from '../src/logger';
import { routeTemporalLogs } from '../src/orchestration/logging';
import { createWorkers, runWorkers } from '../src/orchestration/workers';

const NO_WORKFLOW_CACHE = '--no-workflow-cache';
const WORKFLOW_BUNDLE = '--workflow-bundle=';
/** How often resident memory is read, so that a short peak is not missed. */
const SAMPLE_MS = 50;
/** How often the peak is reported to the bench. */
const REPORT_MS = 500;

/** What the worker process tells the bench. */
export type WorkerReport = { type: 'ready'; rss: number; cpuMs: number } | { type: 'memory'; peakRss: number; cpuMs: number };

function report(message: WorkerReport): void {
  process.send?.(message);
}

/** CPU milliseconds (user + system) this process used so far. */
function cpuMs(): number {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1000;
}

/** Every REPORT_MS, the highest RSS read since the previous report, and the CPU time (user + system) used so far. */
function reportMemory(): void {
  let peakRss = 0;
  setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, SAMPLE_MS).unref();
  setInterval(() => {
    report({ type: 'memory', peakRss, cpuMs: cpuMs() });
    peakRss = 0;
  }, REPORT_MS).unref();
}

async function main(): Promise<void> {
  // Without the bench there is nobody to report to or to stop this process.
  process.once('disconnect', () => process.exit(0));
  const config = loadConfig();
  logger.level = config.logLevel;
  const dataSource = await openDatabase(config.databaseUrl!);
  routeTemporalLogs();
  const workers = await createWorkers({
    connection: await NativeConnection.connect({ address: config.temporalAddress! }),
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    activities: createActivities(composeCore(config, dataSource, undefined)),
    webhookConcurrency: config.webhookConcurrency,
    workflowTaskConcurrency: config.workflowTaskConcurrency,
    ...(process.argv.includes(NO_WORKFLOW_CACHE) ? { maxCachedWorkflows: 0 } : {}),
    workflowBundlePath: process.argv.find((arg) => arg.startsWith(WORKFLOW_BUNDLE))?.slice(WORKFLOW_BUNDLE.length),
  });
  reportMemory();
  const running = runWorkers(workers);
  report({ type: 'ready', rss: process.memoryUsage.rss(), cpuMs: cpuMs() });
  await running;
}

main().catch((err) => {
  process.stderr.write(`campaign bench worker: ${(err as Error).stack}\n`);
  process.exit(1);
});
