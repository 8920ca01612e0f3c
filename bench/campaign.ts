/**
 * `npm run bench:campaign`: one MARKETING campaign to ALL of BENCH_CONTACTS (100000) subscribed
 * contacts, sent through the real API and the `campaign/<id>` workflow on a real Temporal server
 * to a local SES v2 server that answers each request after BENCH_SES_DELAY_MS (5). The API runs
 * in a process of its own as `npm run start:api` starts it, and so does the worker
 * (bench/campaign-worker.ts, as `npm run start:worker` on workflows bundled beforehand, as the
 * Docker image's worker does), so that Herald's memory is read apart from this process's (the
 * local SES server and the bench's bookkeeping). Prints emails per second from
 * `POST /campaigns/{id}/send` until SES holds a message for every contact, the worker's peak
 * resident memory, and the peak of Herald's processes (API, worker, Temporal, Postgres). Aims:
 * >= 2,000 emails/s, a worker peak under 350 MB, memory flat over the send, and Herald's
 * processes under 1.2 GB of RSS.
 *
 * `--kill-worker`: once about a third is delivered, SIGKILLs the worker and starts another, then
 * prints delivered, missing, duplicates and the deliveries in flight at the kill. It fails when
 * a contact is missing or duplicates exceed the deliveries in flight (SES has no idempotency key,
 * so only a call cut off mid-flight may be repeated); either mode fails unless the campaign is SENT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { Client, signupWithProject } from '../test/support/api';
import { emailTag, SesServer } from '../test/support/ses-server';
import { startApiProcess } from './api-process';
import { childNamed, type TreeMemory, watchTreeMemory } from './campaign-memory';
import type { WorkerReport } from './campaign-worker';
import { pidFromFile, treeCpuSeconds } from './process-cpu';
import { startBenchStack } from './stack';
import { buildWorkflowBundle, builtWorkerArgs, runBench, waitFor, withScratch, WORKER_NODE_ARGS } from './support';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const SES_DELAY_MS = Number(process.env.BENCH_SES_DELAY_MS ?? 5);
const KILL_WORKER = process.argv.includes('--kill-worker');
const AIM_EMAILS_PER_SECOND = 2_000;
const AIM_WORKER_PEAK_BYTES = 350 * 1024 * 1024;
const AIM_TREE_RSS_BYTES = 1200 * 1024 * 1024;
/** Memory counts as flat when the peak of the send's second half is within this of the first half's. */
const FLAT_MEMORY_TOLERANCE = 0.1;
const DOMAIN = 'bench.example.com';
const POLL_MS = 20;
/** Delivery gives up after this long without a new message; well above the 20-second heartbeat timeout that recovers a killed batch. */
const STALL_TIMEOUT_MS = 4 * 60_000;
const SENT_TIMEOUT_MS = 60_000;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const count = (n: number) => n.toLocaleString('en');

/** One reading of the worker's memory: the peak RSS of the half second before `at`, and its CPU milliseconds used by then. */
interface MemorySample {
  at: number;
  peakRss: number;
  cpuMs?: number;
}

/** The bench's worker in a child process, which reports its memory into `samples`. */
class WorkerProcess {
  private killed = false;

  private constructor(private readonly child: ChildProcess) {
    child.once('exit', (code, signal) => {
      if (!this.killed) console.error(`The worker process exited unexpectedly (${signal ?? `code ${code}`})`);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts a worker process with this environment on the prebuilt workflow bundle; resolves with it once it polls, and its resident memory then. */
  static async start(env: Record<string, string | undefined>, bundlePath: string, samples: MemorySample[]): Promise<{ worker: WorkerProcess; idleRss: number }> {
    // No workflow cache when it will be killed: the Java test server never re-dispatches a dead worker's sticky tasks.
    const args = [`--workflow-bundle=${bundlePath}`, ...(KILL_WORKER ? ['--no-workflow-cache'] : [])];
    const child = spawn(process.execPath, [...WORKER_NODE_ARGS, ...builtWorkerArgs(), ...args], {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const worker = new WorkerProcess(child);
    const idleRss = await new Promise<number>((resolve, reject) => {
      child.once('exit', () => reject(new Error('The worker process exited before it was ready')));
      child.on('message', (report: WorkerReport) => {
        if (report.type === 'ready') {
          samples.push({ at: performance.now(), peakRss: report.rss, cpuMs: report.cpuMs });
          resolve(report.rss);
        } else samples.push({ at: performance.now(), peakRss: report.peakRss, cpuMs: report.cpuMs });
      });
    });
    return { worker, idleRss };
  }

  /** Ends the process as a deployment stops it (it exits once the bench disconnects, writing any `--cpu-prof` profile), SIGKILL after 10 s. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    this.killed = true;
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  /** Kills the process at once (SIGKILL) and waits until it is gone. */
  async kill(): Promise<void> {
    this.killed = true;
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}

/**
 * The project's messages at SES so far: all of them, and the distinct emails among them (from
 * Herald's `EmailTags`). Messages taken in are dropped from the local SES server's list, so that
 * what stands in for AWS does not hold every message of the run in the bench's process.
 */
class ProjectMessages {
  total = 0;
  readonly emailIds = new Set<string>();

  constructor(
    private readonly ses: SesServer,
    private readonly projectId: string,
  ) {}

  /** Takes in the messages SES received since the last call. */
  update(): this {
    for (const email of this.ses.emails.splice(0)) {
      if (emailTag(email, 'projectId') !== this.projectId) continue;
      this.total += 1;
      this.emailIds.add(emailTag(email, 'emailId') ?? '');
    }
    return this;
  }
}

/** Waits until SES holds a message for `target` distinct emails; false when no new message came for STALL_TIMEOUT_MS. */
async function waitForDeliveries(messages: ProjectMessages, target: number, worker: () => WorkerProcess): Promise<boolean> {
  let seen = -1;
  let progressAt = performance.now();
  while (messages.update().emailIds.size < target) {
    if (!worker().running) return false;
    if (messages.total !== seen) [seen, progressAt] = [messages.total, performance.now()];
    else if (performance.now() - progressAt > STALL_TIMEOUT_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/** Contacts among the campaign's recipients that SES received a message for. */
async function deliveredContacts(dataSource: DataSource, campaignId: string, emailIds: Set<string>): Promise<number> {
  const [row] = await dataSource.query('SELECT count(DISTINCT contact_id)::int AS n FROM emails WHERE campaign_id = $1 AND id = ANY($2::uuid[])', [
    campaignId,
    [...emailIds],
  ]);
  return row.n;
}

/**
 * Deliveries cut off by a kill: SES received them but their records are still QUEUED, so the
 * next attempt sends them again. Read once the dead worker's requests have all been answered.
 */
async function cutOffDeliveries(dataSource: DataSource, campaignId: string, messages: ProjectMessages): Promise<number> {
  const queued: { id: string }[] = await dataSource.query(`SELECT id FROM emails WHERE campaign_id = $1 AND status = 'QUEUED'`, [campaignId]);
  messages.update();
  return queued.filter(({ id }) => messages.emailIds.has(id)).length;
}

/** One send under way. */
interface Run {
  campaignId: string;
  dataSource: DataSource;
  env: Record<string, string | undefined>;
  bundlePath: string;
  messages: ProjectMessages;
  samples: MemorySample[];
  worker: WorkerProcess;
}

/** What the kill did: deliveries at SES then, and those in flight (cut off, and still awaiting SES's answer). */
interface Kill {
  deliveredBefore: number;
  inFlight: number;
  awaitingSes: number;
}

/** SIGKILLs the worker once a third of the audience is delivered, counts the deliveries it cut off, and starts another. */
async function killAndRestart(ses: SesServer, run: Run): Promise<Kill | undefined> {
  if (!(await waitForDeliveries(run.messages, Math.ceil(CONTACTS / 3), () => run.worker))) return undefined;
  const awaitingSes = ses.inFlight;
  await run.worker.kill();
  const deliveredBefore = run.messages.update().emailIds.size;
  // Requests the dead worker wrote may still be read after its exit: let SES take and answer them all.
  await new Promise((resolve) => setTimeout(resolve, 200));
  await waitFor(() => ses.inFlight === 0, 10_000, POLL_MS);
  const inFlight = await cutOffDeliveries(run.dataSource, run.campaignId, run.messages);
  const { worker } = await WorkerProcess.start(run.env, run.bundlePath, run.samples);
  run.worker = worker;
  return { deliveredBefore, inFlight, awaitingSes };
}

/** The worker's peak memory over the send, and over its first and second halves. */
function memoryFigures(samples: MemorySample[], from: number, to: number) {
  const peak = (list: MemorySample[]) => Math.max(0, ...list.map((sample) => sample.peakRss));
  const middle = (from + to) / 2;
  const during = samples.filter((sample) => sample.at >= from && sample.at <= to + 500);
  const first = peak(during.filter((sample) => sample.at <= middle));
  const second = peak(during.filter((sample) => sample.at > middle));
  return { peak: peak(during), first, second, flat: second <= first * (1 + FLAT_MEMORY_TOLERANCE) };
}

/** The worker's CPU milliseconds between the last reading before `from` and the first after `to` (one worker: without a kill). */
function workerCpuMs(samples: MemorySample[], from: number, to: number): number | undefined {
  const before = samples.filter((sample) => sample.at <= from && sample.cpuMs !== undefined).at(-1);
  const after = samples.find((sample) => sample.at >= to && sample.cpuMs !== undefined);
  return before && after ? after.cpuMs! - before.cpuMs! : undefined;
}

/** What one run measured. */
interface Figures {
  /** SES holds a message for every contact. */
  complete: boolean;
  /** From `POST /campaigns/{id}/send` until SES held the last contact's message (or delivery stopped). */
  seconds: number;
  /** Contacts SES received a message for. */
  delivered: number;
  /** Messages beyond the first for a contact. */
  duplicates: number;
  campaign: { status: string; totalRecipients: number; sentCount: number };
  idleRss: number;
  memory: ReturnType<typeof memoryFigures>;
  /** The worker's CPU over the send (without a kill). */
  workerCpuMs: number | undefined;
  /** Herald's processes' memory at their RSS peak over the send, with its parts, and their peak PSS. */
  tree: TreeMemory;
  /** The peak RSS of this process (the local SES server and the bench's bookkeeping), not Herald's. */
  benchPeakRss: number;
  /** CPU seconds over the send of Postgres, of the API process, of this process (the SES double), and of its tree (with the API, the worker, Temporal and an embedded Postgres). */
  cpuSeconds: { postgres: number; api: number; bench: number; tree: number };
  kill: Kill | undefined;
}

/** Prints the summary with the aims' verdicts; true when the checks passed: SENT, nobody missing, no duplicate beyond those in flight at a kill. */
function report({ complete, seconds, delivered, duplicates, campaign, idleRss, memory, workerCpuMs, tree, benchPeakRss, cpuSeconds, kill }: Figures): boolean {
  const missing = CONTACTS - delivered;
  const inFlight = kill?.inFlight ?? 0;
  const rate = delivered / seconds;
  const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');
  console.log(
    complete
      ? `Delivery: ${count(delivered)} contacts at SES ${seconds.toFixed(2)} s after POST send -> ${count(Math.round(rate))} emails/s` +
          (kill ? ' (including the recovery after the kill)' : ` [aim >= ${count(AIM_EMAILS_PER_SECOND)}/s: ${verdict(rate >= AIM_EMAILS_PER_SECOND)}]`)
      : `Delivery: stopped after ${seconds.toFixed(0)} s with ${count(delivered)} of ${count(CONTACTS)} contacts at SES`,
  );
  console.log(
    `Worker memory: idle ${mb(idleRss)}, peak ${mb(memory.peak)} (first half ${mb(memory.first)}, second half ${mb(memory.second)})` +
      (KILL_WORKER ? '' : ` [aim < ${mb(AIM_WORKER_PEAK_BYTES)}: ${verdict(memory.peak < AIM_WORKER_PEAK_BYTES)}; flat: ${verdict(memory.flat)}]`),
  );
  if (workerCpuMs !== undefined) {
    // The tree under this process holds the API, the worker, the dev server and the embedded Postgres.
    const temporal = cpuSeconds.tree - cpuSeconds.bench - cpuSeconds.api - workerCpuMs / 1000 - cpuSeconds.postgres;
    console.log(
      `CPU over the send: worker ${(workerCpuMs / 1000).toFixed(1)} s (${(workerCpuMs / Math.max(1, delivered)).toFixed(2)} ms per email), ` +
        `Postgres ${cpuSeconds.postgres.toFixed(1)} s, Temporal ${temporal.toFixed(1)} s, API ${cpuSeconds.api.toFixed(1)} s, this process (the SES double) ${cpuSeconds.bench.toFixed(1)} s`,
    );
  }
  console.log(`Herald's processes (API, worker, Temporal, Postgres): peak RSS ${mb(tree.rss)}, peak PSS ${mb(tree.pss)} [aim RSS < 1.2 GB: ${verdict(tree.rss < AIM_TREE_RSS_BYTES)}]`);
  const parts = Object.entries(tree.parts).map(([name, part]) => `${name} ${mb(part.rss)} RSS / ${mb(part.pss)} PSS`);
  console.log(`  at the RSS peak: ${parts.join(', ')}`);
  const { postgres } = tree.parts;
  if (postgres && postgres.shmem > 0) {
    // Each process's RSS holds the pages of the one shared segment it touched: counted once, at least the most any one holds.
    const onceRss = tree.rss - postgres.shmem + postgres.maxShmem;
    console.log(
      `  Postgres: ${mb(postgres.shmem)} of its RSS is its shared memory (mostly the shared buffers), each of its ${postgres.processes} processes ` +
        `counting the pages it touched, at most ${mb(postgres.maxShmem)} in one; Herald's RSS with that counted once: at least ${mb(onceRss)}`,
    );
  }
  console.log(`  not counted: this process (the local SES server and the bench), peak RSS ${mb(benchPeakRss)}`);
  console.log(`Campaign: ${campaign.status}, totalRecipients ${count(campaign.totalRecipients)}, sentCount ${count(campaign.sentCount)}`);
  if (kill) {
    console.log(
      `Kill: SIGKILL at ${count(kill.deliveredBefore)} delivered with ${inFlight} deliveries in flight ` +
        `(${kill.awaitingSes} awaiting SES's answer, the rest answered but not yet recorded SENT); worker restarted`,
    );
  }
  const passed = campaign.status === 'SENT' && missing === 0 && duplicates <= inFlight;
  console.log(
    `Delivered ${count(delivered)}, missing ${count(missing)}, duplicates ${count(duplicates)} ${duplicates <= inFlight ? '<=' : '>'} in flight ${inFlight}: ` +
      (passed ? 'PASS' : 'FAIL'),
  );
  return passed;
}

function main(): Promise<boolean> {
  return withScratch('campaign', async (scratch) => {
    const ses = await SesServer.start();
    ses.latencyMs = SES_DELAY_MS;
    scratch.onCleanup(() => ses.close());
    // The SDK's default credential chain reads these; the local SES server accepts any.
    process.env.AWS_ACCESS_KEY_ID = 'bench';
    process.env.AWS_SECRET_ACCESS_KEY = 'bench';
    const stack = await startBenchStack(scratch, { SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint }, undefined, { worker: false });

    const api = await startApiProcess(scratch, stack.env);
    const { project } = await signupWithProject(api, 'Campaign bench');
    const key = project.secretKey as string;
    await stack.dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, DOMAIN]);
    await stack.dataSource.query(
      `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'contact' || i || '@example.com', true FROM generate_series(1, $2) AS i`,
      [project.id, CONTACTS],
    );
    await stack.dataSource.query('ANALYZE contacts');

    const client = new Client(api.url);
    const created = await client.post('/campaigns', {
      name: 'Bench',
      subject: 'News for {{ email }}',
      body: '<p>Hello {{ name ?? "friend" }}</p>',
      from: `news@${DOMAIN}`,
      type: 'MARKETING',
      audienceType: 'ALL',
    }, { key });
    if (created.status !== 201) throw new Error(`POST /campaigns answered ${created.status}: ${JSON.stringify(created.body)}`);
    const samples: MemorySample[] = [];
    const bundlePath = path.join(scratch.root, 'workflow-bundle.js');
    await buildWorkflowBundle(bundlePath);
    const first = await WorkerProcess.start(stack.env, bundlePath, samples);
    const run: Run = {
      campaignId: created.body.data.id,
      dataSource: stack.dataSource,
      env: stack.env,
      bundlePath,
      messages: new ProjectMessages(ses, project.id),
      samples,
      worker: first.worker,
    };
    scratch.onCleanup(() => run.worker.stop());
    console.log(
      `Campaign to ALL of ${count(CONTACTS)} subscribed contacts; local SES answering after ${SES_DELAY_MS} ms; ` +
        `worker in its own process${KILL_WORKER ? ', SIGKILLed after a third' : ''}`,
    );

    const postgresPid = () => pidFromFile(path.join(scratch.root, 'postgres', 'postmaster.pid'));
    // The dev server (or the Java test server) is a child of this process; external servers are not counted.
    const temporalPid = childNamed(process.pid, 'temporal') ?? childNamed(process.pid, 'java');
    const treeWatch = watchTreeMemory(() => ({ api: api.pid, worker: run.worker.pid, temporal: temporalPid, postgres: postgresPid() }));
    let benchPeakRss = 0;
    const benchWatch = setInterval(() => (benchPeakRss = Math.max(benchPeakRss, process.memoryUsage.rss())), 500);
    const benchCpu = () => {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1e6;
    };
    const cpuAtStart = { postgres: treeCpuSeconds(postgresPid()), api: treeCpuSeconds(api.pid), bench: benchCpu(), tree: treeCpuSeconds(process.pid) };
    const started = performance.now();
    const sent = await client.post(`/campaigns/${run.campaignId}/send`, {}, { key });
    if (sent.status !== 200) throw new Error(`POST /campaigns/{id}/send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
    const kill = KILL_WORKER ? await killAndRestart(ses, run) : undefined;
    const complete = (!KILL_WORKER || kill !== undefined) && (await waitForDeliveries(run.messages, CONTACTS, () => run.worker));
    const seconds = (performance.now() - started) / 1000;
    const tree = treeWatch.stop();
    clearInterval(benchWatch);
    const cpuSeconds = {
      postgres: treeCpuSeconds(postgresPid()) - cpuAtStart.postgres,
      api: treeCpuSeconds(api.pid) - cpuAtStart.api,
      bench: benchCpu() - cpuAtStart.bench,
      tree: treeCpuSeconds(process.pid) - cpuAtStart.tree,
    };
    // The worker's next report reads its CPU after the last delivery.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await waitFor(async () => (await client.get(`/campaigns/${run.campaignId}`, { key })).body.status !== 'SENDING', SENT_TIMEOUT_MS, POLL_MS);

    const figures: Figures = {
      complete,
      seconds,
      delivered: await deliveredContacts(stack.dataSource, run.campaignId, run.messages.update().emailIds),
      duplicates: run.messages.total - run.messages.emailIds.size,
      campaign: (await client.get(`/campaigns/${run.campaignId}`, { key })).body,
      idleRss: first.idleRss,
      memory: memoryFigures(samples, started, started + seconds * 1000),
      workerCpuMs: kill ? undefined : workerCpuMs(samples, started, started + seconds * 1000),
      tree,
      benchPeakRss,
      cpuSeconds,
      kill,
    };
    return report(figures);
  });
}

runBench(main);
