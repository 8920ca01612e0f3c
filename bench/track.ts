/**
 * `npm run bench:track`: sustained `POST /v1/track` against the real Herald API, then the
 * same load against a bare `node:http` + `pg` server doing one INSERT per request, both on
 * one fresh embedded Postgres. Prints throughput and latency side by side; the aim is that
 * Herald keeps at least half the baseline's throughput.
 *
 * Each server runs in its own child process (this file, forked), so the load generator
 * does not share an event loop with the server it measures.
 *
 * The project has every subscriber of a tracked event at work: a tracked DYNAMIC segment (a
 * third of the contacts enter it) and an enabled workflow triggered by an event name the bench
 * never sends (Temporal is not started here, so no execution starts, but every event is checked
 * against the triggers and the contacts' waiting executions).
 *
 * After Herald's run its stored events are counted against its 2xx answers: it fails when one is
 * missing or stored twice.
 *
 * BENCH_SECONDS (15), BENCH_WARMUP_SECONDS (3) and BENCH_CONNECTIONS (50) tune the run;
 * BENCH_TRACK_DATA=same sends each contact the same data every time (after its first event,
 * a tracked event then changes nothing of the contact), instead of data that changes nine times in ten;
 * BENCH_CPU_PROFILE=<dir> writes each server's V8 CPU profile there (`--cpu-prof`).
 */
import { composeCore } from '../src/composition';
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { Client as TemporalClient } from '@temporalio/client';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { logger } from '../src/logger';
import { listen } from '../src/runtime/http-server';
import { Client, signupWithProject } from '../test/support/api';
import { pidFromFile, treeCpuSeconds } from './process-cpu';
import { runBench, withScratch } from './support';
import { startBaselineServer } from './baseline-server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CONTACTS = 5_000;
const EVENT_NAMES = ['page.viewed', 'signup.completed', 'plan.upgraded', 'invoice.paid', 'feature.used'];
const PLANS = ['free', 'pro', 'team'];
/** Both servers get the API's default pool size, so they compete for Postgres on equal terms. */
const POOL_SIZE = 10;
const AIM = 0.5;
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const SAME_DATA = process.env.BENCH_TRACK_DATA === 'same';

type Role = 'herald' | 'baseline';

/** What the parent tells a forked server to start. */
interface ServeRequest {
  role: Role;
  databaseUrl: string;
  dataDir: string;
}

/** A server listening in a child process. */
interface Serving {
  port: number;
  stop: () => Promise<void>;
}

/** The real Herald app, configured as in production except for the rate limit. */
async function serveHerald(databaseUrl: string, dataDir: string): Promise<Serving> {
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000' });
  logger.level = config.logLevel;
  const dataSource = await openDatabase(databaseUrl, POOL_SIZE);
  // Composed as in `npm run start:api`: every tracked event is checked against tracked
  // segments, workflow triggers and waiting executions (no event triggers a workflow and no
  // execution waits here, so Temporal, which this bench does not start, is never called).
  const app = createApp(composeCore(config, dataSource, new TemporalClient()));
  const api = await listen(app, 0);
  return {
    port: (api.server.address() as AddressInfo).port,
    stop: async () => {
      await api.close();
      await dataSource.destroy();
    },
  };
}

/** The floor: parse the JSON body, one INSERT into a scratch table, answer. */
async function serveBaseline(databaseUrl: string): Promise<Serving> {
  const setup = new Pool({ connectionString: databaseUrl, max: 1 });
  await setup.query('CREATE TABLE IF NOT EXISTS bench_baseline (id bigserial PRIMARY KEY, email text, name text, data jsonb, created_at timestamptz DEFAULT now())');
  await setup.end();
  return startBaselineServer(databaseUrl, POOL_SIZE, (pool, body) => {
    const { email, event, data } = body as { email: string; event: string; data: unknown };
    return pool.query('INSERT INTO bench_baseline (email, name, data) VALUES ($1, $2, $3)', [email, event, data]);
  });
}

/**
 * Child side: start the requested server and report its port; answer `cpu` with the
 * process's CPU time so far (microseconds); stop when the parent disconnects.
 */
function runChild(): void {
  process.once('message', async ({ role, databaseUrl, dataDir }: ServeRequest) => {
    const serving = role === 'herald' ? await serveHerald(databaseUrl, dataDir) : await serveBaseline(databaseUrl);
    process.on('message', () => {
      const { user, system } = process.cpuUsage();
      process.send!({ cpu: user + system });
    });
    process.once('disconnect', () => void serving.stop().then(() => process.exit(0)));
    process.send!({ port: serving.port });
  });
}

/** A server forked from this file, seen from the parent. */
interface Server {
  url: string;
  /** The server process's CPU time so far, in milliseconds. */
  cpuMs: () => Promise<number>;
  /** Stops the server and waits for its process to exit; again, it does nothing. */
  stop: () => Promise<void>;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve) => child.once('message', (message) => resolve(message as T)));
}

/** Forks this file as the requested server and waits until it listens. */
async function startServer(request: ServeRequest): Promise<Server> {
  const profile = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROFILE_DIR, request.role)}`] : [];
  const child = fork(__filename, ['serve'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...profile] });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${request.role} server exited with code ${code} before listening`))),
  );
  child.send(request);
  const { port } = await Promise.race([nextMessage<{ port: number }>(child), exited]);
  exited.catch(() => undefined);
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMs: async () => {
      const reply = nextMessage<{ cpu: number }>(child);
      child.send('cpu');
      return (await reply).cpu / 1000;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        if (child.connected) child.disconnect();
      }),
  };
}

/** The event name of the bench's workflow trigger; never sent, so no execution starts. */
const UNSENT_TRIGGER = 'bench.never-sent';

/** Gives the project a tracked segment (`data.plan` is `pro`) and an enabled workflow; answers what it made, as a line to print. */
async function addSubscribers(url: string, key: string): Promise<string> {
  const client = new Client(url);
  const answered = async (answer: Promise<{ status: number; body: any }>, status: number) => {
    const { status: got, body } = await answer;
    if (got !== status) throw new Error(`bench setup: expected HTTP ${status}, got ${got}: ${JSON.stringify(body)}`);
    return body;
  };
  const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
  const segment = await answered(client.post('/segments', { name: 'Pro plan', condition, trackMembership: true }, { key }), 201);
  const workflow = await answered(client.post('/workflows', { name: 'Never triggered', triggerConfig: { eventName: UNSENT_TRIGGER } }, { key }), 201);
  await answered(client.post(`/workflows/${workflow.id}/steps`, { type: 'EXIT', config: {} }, { key }), 201);
  await answered(client.patch(`/workflows/${workflow.id}`, { enabled: true }, { key }), 200);
  return `subscribers: tracked segment "${segment.name}" (data.plan = pro), enabled workflow triggered by "${UNSENT_TRIGGER}"`;
}

/** The number of the next tracked event this process sends. */
let sequence = 0;

/**
 * A random tracked event of one of CONTACTS contacts, with a small payload: one that changes the
 * contact's data nine times in ten, or with BENCH_TRACK_DATA=same the same data on every event of
 * a contact. Each carries its own number (`seq`, for the event only: not kept on the contact), so
 * that the stored events can be counted against the answers.
 */
function trackBody(): string {
  const n = Math.floor(Math.random() * CONTACTS);
  const plan = PLANS[n % PLANS.length];
  return JSON.stringify({
    email: `contact-${n}@bench.example`,
    event: EVENT_NAMES[Math.floor(Math.random() * EVENT_NAMES.length)],
    data: {
      plan,
      ...(SAME_DATA ? {} : { step: Math.floor(Math.random() * 10) }),
      seq: { value: sequence++, persistent: false },
    },
  });
}

/**
 * Herald's tracked events as stored, beside the 2xx answers of both phases (warm-up and measured):
 * none may be missing or stored twice. More may be stored than answered: a request cut off when
 * a phase ends (at most CONNECTIONS of them) may have been stored without its answer being read.
 */
async function storedEvents(db: Pool, projectId: string, answered: number): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS stored, count(DISTINCT data->>'seq')::int AS numbers FROM events WHERE project_id = $1 AND source = 'API'`,
    [projectId],
  );
  const { stored, numbers } = rows[0] as { stored: number; numbers: number };
  const twice = stored - numbers;
  const ok = twice === 0 && stored >= answered && stored <= answered + 2 * CONNECTIONS;
  console.log(`Herald's events: ${stored} stored for ${answered} answered 2xx (warm-up and measured), ${twice} stored twice -> ${ok ? 'PASS' : 'FAIL'}`);
  return ok;
}

/** The figures of one measured run. */
interface Figures {
  requestsPerSecond: number;
  ok: number;
  /** 2xx answers of the warm-up and the measured run together. */
  answered: number;
  p50: number;
  p99: number;
  /** CPU time of the server process per successful request, in milliseconds. */
  cpuPerRequest: number;
  /** CPU time of the embedded Postgres's processes per successful request, in milliseconds; undefined on an external server. */
  postgresCpuPerRequest: number | undefined;
  /** CPU time of this process, the load generator, per successful request, in milliseconds. */
  loadCpuPerRequest: number;
  /** Bytes of write-ahead log Postgres wrote per successful request (all its writes, from every process). */
  walPerRequest: number;
  failures: string[];
}

/** Drives POST /v1/track with CONNECTIONS keep-alive connections for `seconds`. */
async function drive(url: string, key: string, seconds: number): Promise<Omit<Figures, 'answered' | 'cpuPerRequest' | 'postgresCpuPerRequest' | 'loadCpuPerRequest' | 'walPerRequest'>> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/track',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        setupRequest: (request) => ({ ...request, body: trackBody() }),
      },
    ],
  });
  const failures = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, stats]) => `${stats.count ?? 0} x HTTP ${status}`);
  if (result.errors > 0) failures.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  return {
    requestsPerSecond: result['2xx'] / result.duration,
    ok: result['2xx'],
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures,
  };
}

/** CPU milliseconds this process has used so far. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Postgres's write-ahead log position now, in bytes (the bench's database is the only one written meanwhile). */
async function walPosition(db: Pool): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS bytes`);
  return Number(rows[0].bytes);
}

/** Warms a server up, then measures it; postgresPid answers the embedded Postgres's pid (undefined on an external one). */
async function measure(name: string, server: Server, key: string, postgresPid: () => number | undefined, db: Pool): Promise<Figures> {
  console.log(`${name}: warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s with ${CONNECTIONS} connections`);
  const warmUp = await drive(server.url, key, WARMUP_SECONDS);
  const pid = postgresPid();
  const [cpuBefore, postgresBefore, loadBefore, walBefore] = [await server.cpuMs(), treeCpuSeconds(pid) * 1000, ownCpuMs(), await walPosition(db)];
  const figures = await drive(server.url, key, SECONDS);
  const [cpuAfter, postgresAfter, loadAfter, walAfter] = [await server.cpuMs(), treeCpuSeconds(pid) * 1000, ownCpuMs(), await walPosition(db)];
  return {
    ...figures,
    answered: warmUp.ok + figures.ok,
    cpuPerRequest: (cpuAfter - cpuBefore) / figures.ok,
    postgresCpuPerRequest: pid === undefined ? undefined : (postgresAfter - postgresBefore) / figures.ok,
    loadCpuPerRequest: (loadAfter - loadBefore) / figures.ok,
    walPerRequest: (walAfter - walBefore) / figures.ok,
  };
}

/** Prints both runs side by side; false when either saw a non-2xx answer or a connection error. */
function report(herald: Figures, baseline: Figures): boolean {
  const ratio = herald.requestsPerSecond / baseline.requestsPerSecond;
  const columns = (cells: string[]) => cells[0].padEnd(24) + cells.slice(1, -1).map((cell) => cell.padStart(12)).join('') + `   ${cells.at(-1)}`;
  const row = (name: string, f: Figures) =>
    columns([
      name,
      f.requestsPerSecond.toFixed(0),
      f.p50.toFixed(1),
      f.p99.toFixed(1),
      f.ok > 0 ? f.cpuPerRequest.toFixed(3) : '-',
      f.ok > 0 && f.postgresCpuPerRequest !== undefined ? f.postgresCpuPerRequest.toFixed(3) : '-',
      f.ok > 0 ? f.loadCpuPerRequest.toFixed(3) : '-',
      f.ok > 0 ? f.walPerRequest.toFixed(0) : '-',
      String(f.ok),
      f.failures.length ? f.failures.join(', ') : 'none',
    ]);
  console.log('');
  console.log(columns(['', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'Postgres', 'load', 'WAL B/req', '2xx', 'non-2xx / errors']));
  console.log(row('Herald POST /v1/track', herald));
  console.log(row('baseline one INSERT', baseline));
  console.log('');
  console.log(`Herald / baseline throughput: ${ratio.toFixed(2)} (aim: at least ${AIM}) -> ${ratio >= AIM ? 'MET' : 'NOT MET'}`);
  console.log(
    `CPU ms/req: the server process, the embedded Postgres's processes (- on an external server) and the load generator, each per request; ${cpus().length} CPUs are shared by all three.`,
  );
  console.log('WAL B/req: bytes of write-ahead log Postgres wrote per request (its write volume, what a replica or a backup also receives).');
  return herald.failures.length === 0 && baseline.failures.length === 0;
}

function main(): Promise<boolean> {
  return withScratch('track', async ({ root, databaseUrl, onCleanup }) => {
    const request = { databaseUrl, dataDir: path.join(root, 'data') };
    const db = new Pool({ connectionString: databaseUrl, max: 1 });
    onCleanup(() => db.end());
    const postgresPid = () => (process.env.BENCH_DATABASE_URL ? undefined : pidFromFile(path.join(root, 'postgres', 'postmaster.pid')));

    const herald = await startServer({ role: 'herald', ...request });
    onCleanup(herald.stop);
    const { project } = await signupWithProject(herald, 'Bench');
    console.log(await addSubscribers(herald.url, project.secretKey));
    console.log(`tracked data: ${SAME_DATA ? 'the same on every event of a contact (BENCH_TRACK_DATA=same)' : 'changes the contact nine times in ten'}`);
    const heraldFigures = await measure('Herald', herald, project.secretKey, postgresPid, db);
    await herald.stop();
    const eventsKept = await storedEvents(db, project.id, heraldFigures.answered);

    const baseline = await startServer({ role: 'baseline', ...request });
    onCleanup(baseline.stop);
    const baselineFigures = await measure('baseline', baseline, project.secretKey, postgresPid, db);

    return report(heraldFigures, baselineFigures) && eventsKept;
  });
}

if (process.argv[2] === 'serve') {
  runChild();
} else {
  runBench(main);
}
