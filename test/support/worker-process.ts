import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { startTestWorker } from './worker';

/** A worker in a process of its own, for tests that kill it. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const dataSource = await openDatabase(config.databaseUrl!, 4);
  await startTestWorker(dataSource);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
