import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { startTestWorker } from './worker';

/** A worker in a process of its own, for tests that kill it. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const dataSource = await openDatabase(config.databaseUrl!, 4);
  // No sticky workflow cache: the Java test server does not move a dead worker's sticky
  // workflow tasks back to the shared queue as a real Temporal server does after a timeout.
  await startTestWorker(dataSource, {}, { maxCachedWorkflows: 0 });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
