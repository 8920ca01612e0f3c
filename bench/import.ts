/**
 * `npm run bench:import`: a generated 100,000-row CSV (under 5 MB) uploaded to
 * `POST /contacts/import` and imported end to end by the `import/<jobId>` workflow on a
 * real Temporal server, with the API and a worker in this process on embedded Postgres.
 * Prints rows per second; the aim is under 20 s for the whole import.
 *
 * BENCH_ROWS (100000) sets the size.
 */
import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createActivities } from '../activities';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { EventDispatcher } from '../src/events/dispatcher';
import { logger } from '../src/logger';
import { createMailer } from '../src/mailer';
import { listen } from '../src/runtime/http-server';
import { connectTemporal } from '../src/temporal/client';
import { routeTemporalLogs } from '../src/temporal/logging';
import { createWorker } from '../src/temporal/worker';
import { findTemporalCli } from '../temporal/cli';
import { startDevServer } from '../temporal/dev-server';
import { startTestServer } from '../temporal/test-server';
import { Client, signupWithProject } from '../test/support/api';
import { freePort } from '../test/support/ports';
import { runBench, withScratch, type Scratch } from './support';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const AIM_SECONDS = 20;
const PLANS = ['free', 'pro', 'team'];

/** A CSV like a real export: email, a name with a space in its header, a plan, a number and a date. */
function generateCsv(rows: number): Buffer {
  const lines = ['email,first name,plan,age,signed up'];
  for (let i = 0; i < rows; i += 1) {
    lines.push(`user${i}@example.com,Name${i},${PLANS[i % 3]},${18 + (i % 60)},2024-0${1 + (i % 9)}-1${i % 10}`);
  }
  return Buffer.from(lines.join('\n'));
}

/** The Temporal CLI dev server when a CLI can be had, else the Java test server. */
async function startTemporal(scratch: Scratch): Promise<string> {
  const port = await freePort();
  const cliPath = await findTemporalCli({ install: false });
  if (cliPath) {
    const dev = await startDevServer({ cliPath, dataDir: scratch.root, port, uiPort: await freePort(), namespace: 'default' });
    scratch.onCleanup(dev.stop);
    return dev.address;
  }
  const server = await startTestServer(port);
  scratch.onCleanup(server.stop);
  return `127.0.0.1:${port}`;
}

function main(): Promise<boolean> {
  return withScratch('import', async (scratch) => {
    const address = await startTemporal(scratch);
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: scratch.databaseUrl,
      DATA_DIR: path.join(scratch.root, 'data'),
      TEMPORAL_ADDRESS: address,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    });
    logger.level = config.logLevel;
    const dataSource = await openDatabase(scratch.databaseUrl);
    scratch.onCleanup(() => dataSource.destroy());
    const mailer = createMailer(config, dataSource);
    const dispatcher = new EventDispatcher();

    routeTemporalLogs();
    const connection = await NativeConnection.connect({ address });
    scratch.onCleanup(() => connection.close());
    const worker = await createWorker({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: config.taskQueue,
      activities: createActivities({ dataSource, mailer, config, dispatcher }),
    });
    const running = worker.run();
    scratch.onCleanup(async () => {
      worker.shutdown();
      await running;
    });

    const temporal = await connectTemporal(address, config.temporalNamespace);
    scratch.onCleanup(() => temporal.connection.close());
    const api = await listen(createApp({ config, dataSource, mailer, temporal: temporal.client, dispatcher }), 0);
    scratch.onCleanup(api.close);
    const url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    const { project } = await signupWithProject({ url }, 'Import bench');

    const csv = generateCsv(ROWS);
    console.log(`CSV: ${ROWS.toLocaleString('en')} rows, ${(csv.length / 1024 / 1024).toFixed(2)} MB`);
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    const started = performance.now();
    const response = await fetch(`${url}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${project.secretKey}` }, body: form });
    const { jobId } = (await response.json()) as { jobId: string };
    if (response.status !== 202) throw new Error(`upload answered ${response.status}`);

    const client = new Client(url);
    let job: Record<string, unknown> = {};
    while (!['COMPLETED', 'FAILED', 'CANCELLED'].includes(job.status as string)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await client.get(`/contacts/import/${jobId}`, { key: project.secretKey })).body;
    }
    const seconds = (performance.now() - started) / 1000;
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM contacts WHERE project_id = $1', [project.id]);

    console.log(`Job ${job.status}: processed ${job.processed}, succeeded ${job.succeeded}, failed ${job.failed}; contacts stored: ${n}`);
    console.log(`Import time: ${seconds.toFixed(2)} s (upload to COMPLETED), ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s`);
    console.log(`Aim: under ${AIM_SECONDS} s for 100,000 rows -> ${seconds < AIM_SECONDS && ROWS >= 100_000 ? 'MET' : 'NOT MET'}`);
    return job.status === 'COMPLETED' && n === ROWS;
  });
}

runBench(main);
