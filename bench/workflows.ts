/**
 * `npm run bench:workflows`: BENCH_CONTACTS (10000) contacts tracked with `POST /v1/track`
 * (event `signed.up`, 20 keep-alive connections) into an enabled workflow `DELAY 5s -> SEND_EMAIL
 * -> EXIT`, run as `wf-exec/<id>` workflows on a real Temporal server and delivered to a local SES
 * v2 server. The API runs in this process; the worker in its own (bench/campaign-worker.ts) so
 * that its memory can be read. Prints executions started per second, executions completed per
 * second and the worker's peak resident memory, and the CPU seconds each process used from the
 * first track to the last start and to the last execution's end; fails when an execution FAILED
 * or SES did not receive exactly one message per contact. BENCH_DELAY_SECONDS sets the DELAY: one
 * longer than the starts take (60) measures the starts alone and then the executions alone.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import type { DataSource } from 'typeorm';
import { Client, signupWithProject, type Answer } from '../test/support/api';
import { emailTag, SesServer } from '../test/support/ses-server';
import type { WorkerReport } from './campaign-worker';
import { CpuMeter, pidFromFile } from './process-cpu';
import { startBenchStack } from './stack';
import { builtWorkerArgs, runBench, waitFor, withScratch, WORKER_NODE_ARGS, type Scratch } from './support';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const CONNECTIONS = 20;
const EVENT = 'signed.up';
const DOMAIN = 'bench.example.com';
const DELAY_SECONDS = Number(process.env.BENCH_DELAY_SECONDS ?? 5);
if (!Number.isInteger(DELAY_SECONDS) || DELAY_SECONDS < 1) throw new Error(`BENCH_DELAY_SECONDS must be a whole number of seconds, 1 or more; got ${process.env.BENCH_DELAY_SECONDS}`);
const POLL_MS = 100;
/** How long the executions may take to start once the track phase is over. */
const START_TIMEOUT_MS = 2 * 60_000;
/** Waiting for the executions to end gives up after this long without one ending (the DELAY's wait on top). */
const STALL_TIMEOUT_MS = 2 * 60_000 + DELAY_SECONDS * 1000;
/** How long SES's copies may trail the executions' end. */
const SES_TIMEOUT_MS = 30_000;
const ENDED = ['COMPLETED', 'EXITED', 'CANCELLED', 'FAILED'];

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const count = (n: number) => n.toLocaleString('en');
const perSecond = (n: number, seconds: number) => `${count(Math.round(n / seconds))}/s`;
/** CPU seconds this process (the API and the load) used since `since`. */
const apiSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

/** Polls `ended` until it reaches `target`; false when it stays the same for STALL_TIMEOUT_MS. */
async function waitForProgress(ended: () => Promise<number>, target: number): Promise<boolean> {
  let seen = -1;
  let progressAt = performance.now();
  for (let now = await ended(); now < target; now = await ended()) {
    if (now !== seen) [seen, progressAt] = [now, performance.now()];
    else if (performance.now() - progressAt > STALL_TIMEOUT_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/** BENCH_WORKER_CPU_PROF: a directory where the worker writes a V8 CPU profile of the run (`.cpuprofile`, for Chrome DevTools). */
const WORKER_CPU_PROF = process.env.BENCH_WORKER_CPU_PROF;

/**
 * The bench worker in its own process, stopped with the scratch cleanup (asked to exit first
 * when it writes a CPU profile); resolves once it polls, with its memory then and its peak since.
 */
async function startWorker(scratch: Scratch, env: Record<string, string | undefined>) {
  const profile = WORKER_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(WORKER_CPU_PROF)] : [];
  const child = spawn(process.execPath, [...profile, ...WORKER_NODE_ARGS, ...builtWorkerArgs()], {
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  scratch.onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    if (WORKER_CPU_PROF) {
      // The worker exits when its channel closes, writing the profile on its way out.
      child.disconnect();
      const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000))]);
      if (stopped) return;
    }
    child.kill('SIGKILL');
    await exited;
  });
  let peakRss = 0;
  const pid = child.pid;
  const idleRss = await new Promise<number>((resolve, reject) => {
    child.once('exit', () => reject(new Error('The worker process exited before it was ready')));
    child.on('message', (report: WorkerReport) => {
      if (report.type === 'ready') resolve(report.rss);
      else peakRss = Math.max(peakRss, report.peakRss);
    });
  });
  return { idleRss, peakRss: () => peakRss, pid };
}

/** The pid in a run record (src/runtime/run-records.ts); undefined when there is none. */
function runRecordPid(file: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

/** The answer's body; throws with the answer when its status is not `expected`. */
function bodyOf(what: string, answer: Answer, expected: number) {
  if (answer.status !== expected) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Creates and enables the workflow `DELAY 5s -> SEND_EMAIL -> EXIT`, triggered by EVENT; returns its id. */
async function createWorkflow(client: Client, key: string): Promise<string> {
  const { id } = bodyOf('POST /workflows', await client.post('/workflows', { name: 'Bench', triggerConfig: { eventName: EVENT } }, { key }), 201);
  const configs = [
    { type: 'DELAY', config: { amount: DELAY_SECONDS, unit: 'seconds' } },
    {
      type: 'SEND_EMAIL',
      config: { subject: 'Welcome', body: '<p>Hi {{ name ?? "there" }}</p>', from: `hello@${DOMAIN}`, type: 'TRANSACTIONAL' },
    },
    { type: 'EXIT', config: {} },
  ];
  const stepIds: string[] = [];
  for (const step of configs) stepIds.push(bodyOf('POST /workflows/{id}/steps', await client.post(`/workflows/${id}/steps`, step, { key }), 201).id);
  for (let i = 1; i < stepIds.length; i++) {
    const transition = { fromStepId: stepIds[i - 1], toStepId: stepIds[i] };
    bodyOf('POST /workflows/{id}/transitions', await client.post(`/workflows/${id}/transitions`, transition, { key }), 201);
  }
  bodyOf('PATCH /workflows/{id}', await client.patch(`/workflows/${id}`, { enabled: true }, { key }), 200);
  return id;
}

/** Tracks EVENT once for each of CONTACTS new contacts over CONNECTIONS keep-alive connections; returns the 2xx answers. */
async function track(url: string, key: string): Promise<{ ok: number; failures: string[] }> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    amount: CONTACTS,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        path: '/v1/track',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: `contact${next++}@example.com`, event: EVENT }) }),
      },
    ],
  });
  const failures = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, stats]) => `${stats.count ?? 0} x HTTP ${status}`);
  if (result.errors > 0) failures.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  return { ok: result['2xx'], failures };
}

/** The workflow's executions by status, and how many there are. */
async function executionStatuses(dataSource: DataSource, workflowId: string) {
  const rows: { status: string; n: number }[] = await dataSource.query(
    'SELECT status, count(*)::int AS n FROM workflow_executions WHERE workflow_id = $1 GROUP BY status ORDER BY status',
    [workflowId],
  );
  const byStatus = Object.fromEntries(rows.map(({ status, n }) => [status, n]));
  const total = rows.reduce((sum, { n }) => sum + n, 0);
  const ended = rows.filter(({ status }) => ENDED.includes(status)).reduce((sum, { n }) => sum + n, 0);
  return { byStatus, total, ended };
}

/** Seconds from the first execution's start to the last one's end, as the database recorded them. */
async function executionSpan(dataSource: DataSource, workflowId: string): Promise<number> {
  const [row] = await dataSource.query(
    'SELECT extract(epoch FROM max(completed_at) - min(started_at))::float AS seconds FROM workflow_executions WHERE workflow_id = $1',
    [workflowId],
  );
  return row.seconds;
}

function main(): Promise<boolean> {
  return withScratch('workflows', async (scratch) => {
    const ses = await SesServer.start();
    scratch.onCleanup(() => ses.close());
    // The SDK's default credential chain reads these; the local SES server accepts any.
    process.env.AWS_ACCESS_KEY_ID = 'bench';
    process.env.AWS_SECRET_ACCESS_KEY = 'bench';
    const stack = await startBenchStack(
      scratch,
      { SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint, RATE_LIMIT_PER_MINUTE: '100000000' },
      undefined,
      { worker: false },
    );
    const { project } = await signupWithProject(stack, 'Workflows bench');
    const key = project.secretKey as string;
    await stack.dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, DOMAIN]);
    const workflowId = await createWorkflow(new Client(stack.url), key);
    const worker = await startWorker(scratch, stack.env);
    const statuses = () => executionStatuses(stack.dataSource, workflowId);
    console.log(`Workflow DELAY ${DELAY_SECONDS}s -> SEND_EMAIL -> EXIT; ${count(CONTACTS)} contacts tracked by ${CONNECTIONS} connections; worker in its own process`);

    // The bench process runs the API and the load; the embedded servers' pids are in their data directories.
    const cpu = new CpuMeter({
      'Temporal dev server': () => runRecordPid(path.join(scratch.root, 'run', 'temporal.json')),
      worker: () => worker.pid,
      Postgres: () => pidFromFile(path.join(scratch.root, 'postgres', 'postmaster.pid')),
    });
    const apiCpuAtStart = process.cpuUsage();
    cpu.start();
    const started = performance.now();
    const tracked = await track(stack.url, key);
    const trackSeconds = (performance.now() - started) / 1000;
    const startedInTrack = (await statuses()).total;
    console.log(
      `Track phase: ${count(tracked.ok)} x 2xx in ${trackSeconds.toFixed(2)} s (${perSecond(tracked.ok, trackSeconds)}); ` +
        `${count(startedInTrack)} executions started in it -> ${perSecond(startedInTrack, trackSeconds)} started`,
    );
    if (tracked.failures.length) console.log(`Track failures: ${tracked.failures.join(', ')}`);

    const allStarted = await waitFor(async () => (await statuses()).total >= CONTACTS, START_TIMEOUT_MS);
    const startSeconds = (performance.now() - started) / 1000;
    console.log(
      allStarted
        ? `Started: all ${count(CONTACTS)} executions ${startSeconds.toFixed(2)} s after the first track -> ${perSecond(CONTACTS, startSeconds)}`
        : `Started: timed out with ${count((await statuses()).total)} of ${count(CONTACTS)} executions`,
    );
    if (allStarted) console.log(`CPU from the first track to the last start: ${cpu.read()}, API and load ${apiSeconds(apiCpuAtStart).toFixed(1)} s`);
    const allEnded = allStarted && (await waitForProgress(async () => (await statuses()).ended, CONTACTS));
    const ended = await statuses();
    const span = await executionSpan(stack.dataSource, workflowId);
    const done = (ended.byStatus.COMPLETED ?? 0) + (ended.byStatus.EXITED ?? 0);
    console.log(
      allEnded
        ? `Completed: ${count(done)} COMPLETED/EXITED ${span.toFixed(2)} s from the first start to the last end -> ${perSecond(done, span)} ` +
            `(${perSecond(done, span - DELAY_SECONDS)} over the ${(span - DELAY_SECONDS).toFixed(2)} s after the first DELAY)`
        : `Completed: stalled with ${count(ended.ended)} of ${count(ended.total)} executions ended`,
    );
    console.log(`CPU from the first track to the last end: ${cpu.read()}, API and load ${apiSeconds(apiCpuAtStart).toFixed(1)} s`);
    console.log(`Statuses: ${Object.entries(ended.byStatus).map(([status, n]) => `${status} ${count(n)}`).join(', ')}`);

    // The signup's verification email also reaches SES; count only this project's messages.
    const messages = () => ses.emails.filter((email) => emailTag(email, 'projectId') === project.id);
    await waitFor(() => messages().length >= done, SES_TIMEOUT_MS);
    const emailIds = new Set(messages().map((email) => emailTag(email, 'emailId')));
    emailIds.delete(undefined);
    console.log(`SES: ${count(messages().length)} messages for ${count(emailIds.size)} distinct emails`);
    console.log(`Worker memory: idle ${mb(worker.idleRss)}, peak ${mb(worker.peakRss())}`);

    const passed = tracked.ok === CONTACTS && done === CONTACTS && !ended.byStatus.FAILED && messages().length === CONTACTS && emailIds.size === CONTACTS;
    console.log(passed ? 'PASS' : 'FAIL');
    return passed;
  });
}

runBench(main);
