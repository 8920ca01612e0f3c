import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { composeCore } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { listen } from '../../src/runtime/http-server';

/** An API without Temporal in a process of its own, for tests that kill it: prints `port <n>` once it listens. */
async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, RATE_LIMIT_PER_MINUTE: '100000000' });
  const dataSource = await openDatabase(config.databaseUrl!, 4);
  const api = await listen(createApp(composeCore(config, dataSource, undefined)), 0);
  process.stdout.write(`port ${(api.server.address() as AddressInfo).port}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
