/**
 * `npm run bench:send`: 10,000 `POST /v1/send` requests, each to its own recipient, from 20
 * concurrent keep-alive clients against the real Herald API, delivered by the `email/<emailId>`
 * workflows on a real Temporal server through the SES transport to a local SES v2 wire server.
 * The API and a worker run in this process on embedded Postgres, sharing one pool as `npm start`
 * does. Prints the send phase's requests per second and latency, and the time from the first
 * request until SES holds every message; then checks every email is SENT exactly once.
 *
 * BENCH_SENDS (10000) and BENCH_CONCURRENCY (20) set the size.
 */
import type { Worker } from '@temporalio/worker';
import autocannon from 'autocannon';
import type { DataSource } from 'typeorm';
import { signupWithProject } from '../test/support/api';
import { emailTag, SesServer, type CapturedEmail } from '../test/support/ses-server';
import { startBenchStack } from './stack';
import { runBench, waitFor, withScratch } from './support';

const SENDS = Number(process.env.BENCH_SENDS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const DOMAIN = 'bench.example.com';
const DELIVERY_TIMEOUT_MS = 10 * 60_000;
/** How long the email records may trail SES's copy before the check counts them as not SENT. */
const SETTLE_TIMEOUT_MS = 30_000;
/** The API and the worker share this one pool, as under `npm start`. */
const POOL_SIZE = 10;

/** How the send phase went, as the load generator saw it. */
interface SendFigures {
  ok: number;
  seconds: number;
  p50: number;
  p99: number;
  failures: string[];
  firstFailure: string | undefined;
}

/** The worker's limits as compiled from the SDK's defaults. */
function describeWorker(worker: Worker): string {
  const { tuner, activityTaskPollerBehavior, workflowTaskPollerBehavior, maxCachedWorkflows } = worker.options;
  const slots = (supplier: (typeof tuner)['activityTaskSlotSupplier']) => (supplier.type === 'fixed-size' ? String(supplier.numSlots) : supplier.type);
  const pollers = (behavior: typeof activityTaskPollerBehavior) => (behavior.type === 'simple-maximum' ? String(behavior.maximum) : behavior.type);
  return [
    `activity slots ${slots(tuner.activityTaskSlotSupplier)} (pollers ${pollers(activityTaskPollerBehavior)})`,
    `workflow task slots ${slots(tuner.workflowTaskSlotSupplier)} (pollers ${pollers(workflowTaskPollerBehavior)})`,
    `cached workflows ${maxCachedWorkflows}`,
  ].join(', ');
}

/** Sends SENDS requests over CONCURRENCY keep-alive connections, each to a new recipient with its own name. */
async function drive(url: string, key: string): Promise<SendFigures> {
  let next = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const result = await autocannon({
    url,
    connections: CONCURRENCY,
    amount: SENDS,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        path: '/v1/send',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        setupRequest: (request) => {
          const i = next++;
          const body = {
            from: `hello@${DOMAIN}`,
            to: `user${i}@example.com`,
            subject: 'Bench',
            body: "<p>Hi {{ name ?? 'there' }}</p>",
            data: { name: `Name${i}` },
          };
          return { ...request, body: JSON.stringify(body) };
        },
        onResponse: (status, body) => {
          if ((status < 200 || status > 299) && firstFailure === undefined) firstFailure = `HTTP ${status}: ${body.slice(0, 500)}`;
        },
      },
    ],
  });
  const seconds = (performance.now() - started) / 1000;
  const failures = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, stats]) => `${stats.count ?? 0} x HTTP ${status}`);
  if (result.errors > 0) failures.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  return { ok: result['2xx'], seconds, p50: result.latency.p50, p99: result.latency.p99, failures, firstFailure };
}

/** Problems with what was delivered: records not SENT, or SES receiving other than one message per accepted send. */
async function verify(dataSource: DataSource, projectId: string, messages: CapturedEmail[], accepted: number): Promise<string[]> {
  const statuses = async () =>
    (await dataSource.query('SELECT status, count(*)::int AS n FROM emails WHERE project_id = $1 GROUP BY status', [projectId])) as {
      status: string;
      n: number;
    }[];
  await waitFor(async () => (await statuses()).every(({ status }) => status !== 'QUEUED'), SETTLE_TIMEOUT_MS);
  const problems: string[] = [];
  const byStatus = await statuses();
  const sent = byStatus.find(({ status }) => status === 'SENT')?.n ?? 0;
  const others = byStatus.filter(({ status }) => status !== 'SENT').map(({ status, n }) => `${n} ${status}`);
  if (sent !== accepted || others.length > 0) problems.push(`email records: ${sent} SENT of ${accepted}${others.length ? `; also ${others.join(', ')}` : ''}`);
  const emailIds = new Set(messages.map((email) => emailTag(email, 'emailId')));
  emailIds.delete(undefined);
  if (emailIds.size !== accepted || messages.length !== accepted) {
    problems.push(`SES received ${messages.length} messages for ${emailIds.size} distinct emailId tags; expected ${accepted} of each`);
  }
  return problems;
}

function main(): Promise<boolean> {
  return withScratch('send', async (scratch) => {
    const ses = await SesServer.start();
    scratch.onCleanup(() => ses.close());
    // The SDK's default credential chain reads these; the local SES server accepts any.
    process.env.AWS_ACCESS_KEY_ID = 'bench';
    process.env.AWS_SECRET_ACCESS_KEY = 'bench';

    const { url, config, dataSource, worker } = await startBenchStack(
      scratch,
      { SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint, RATE_LIMIT_PER_MINUTE: '100000000' },
      POOL_SIZE,
    );
    const { project } = await signupWithProject({ url }, 'Send bench');
    await dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, DOMAIN]);

    console.log(`Sends: ${SENDS.toLocaleString('en')} with ${CONCURRENCY} concurrent clients; transport ${config.transport} (local SES at ${ses.endpoint})`);
    console.log(`Worker (SDK defaults): ${describeWorker(worker)}; Postgres pool ${POOL_SIZE}, shared by API and worker`);
    const started = performance.now();
    const send = await drive(url, project.secretKey);
    console.log(
      `Send phase: ${send.ok.toLocaleString('en')} x 2xx in ${send.seconds.toFixed(2)} s -> ${Math.round(send.ok / send.seconds).toLocaleString('en')} requests/s; ` +
        `latency p50 ${send.p50} ms, p99 ${send.p99} ms`,
    );
    if (send.failures.length) console.log(`Send failures: ${send.failures.join(', ')}${send.firstFailure ? `; first: ${send.firstFailure}` : ''}`);

    // The signup's verification email also reaches SES; count only this project's messages.
    const messages = () => ses.emails.filter((email) => emailTag(email, 'projectId') === project.id);
    const delivered = await waitFor(() => messages().length >= send.ok, DELIVERY_TIMEOUT_MS);
    const seconds = (performance.now() - started) / 1000;
    if (delivered) {
      console.log(`Delivery: ${send.ok.toLocaleString('en')} messages at SES ${seconds.toFixed(2)} s after the first request -> ${Math.round(send.ok / seconds).toLocaleString('en')} messages/s`);
    } else {
      console.log(`Delivery: timed out after ${seconds.toFixed(0)} s with ${messages().length} of ${send.ok} messages at SES`);
    }

    const problems = await verify(dataSource, project.id, messages(), send.ok);
    if (send.ok !== SENDS) problems.unshift(`${SENDS - send.ok} sends were not accepted`);
    console.log(problems.length ? `Checks FAILED:\n  ${problems.join('\n  ')}` : 'Checks: every email SENT, one SES message per email (distinct emailId tags)');
    return delivered && problems.length === 0;
  });
}

runBench(main);
