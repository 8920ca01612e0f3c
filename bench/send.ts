/**
 * `npm run bench:send`: sustained `POST /v1/send` (or `/v1/send/batch`) against Herald as `npm
 * start` runs it (embedded Postgres, Temporal dev server, worker and API in one process tree),
 * delivering through the SES transport to a local SES v2 wire server; then the same load against
 * a bare `node:http` + `pg` server doing one INSERT of the same request body into the same
 * Postgres. Each request goes to a new recipient. Prints accepted per second, latency, delivered
 * per second while the load ran, how long the backlog took to drain, and the ratio to the
 * baseline; checks that every email answered 200 reached SES, none twice.
 *
 * BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (3) and BENCH_CONNECTIONS (50) tune the load;
 * BENCH_SEND_TEMPLATE=1 sends a stored template with `data` instead of subject and body;
 * BENCH_SEND_BATCH=<n> posts `/v1/send/batch` calls of n requests (one recipient each);
 * BENCH_SEND_KILL=1 SIGKILLs every Herald process halfway through the measured load and runs
 * `npm start` again at once on the same data (the load goes on meanwhile): then duplicates may
 * reach the sends in flight at the kill, and nothing answered 200 may be missing;
 * BENCH_CPU_PROFILE=<dir> writes the V8 CPU profile of Herald's Node process there (`--cpu-prof`).
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { startBaselineServer } from './baseline-server';
import { Client } from '../test/support/api';
import { descendants, heraldDatabaseUrl, type HeraldProcess } from '../test/support/herald-process';
import { SesHerald } from '../test/support/ses-herald';
import { ownCpuSeconds, pidFromFile, treeCpuSeconds } from './process-cpu';
import { buildHerald, runBench, waitFor } from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TEMPLATE = process.env.BENCH_SEND_TEMPLATE === '1';
const BATCH = Number(process.env.BENCH_SEND_BATCH ?? 0);
const KILL = process.env.BENCH_SEND_KILL === '1';
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const DOMAIN = 'bench.example.com';
const DRAIN_TIMEOUT_MS = 10 * 60_000;
/** The baseline's pool: npm start's own default. */
const BASELINE_POOL = 10;
const AIM = 0.5;

const count = (n: number) => Math.round(n).toLocaleString('en');

/** The figures of one measured load. */
interface Load {
  requestsPerSecond: number;
  ok: number;
  p50: number;
  p99: number;
  failures: string[];
}

/** The email ids Herald answered 200 with, as the load generator read them. */
const accepted = new Set<string>();
let sequence = 0;

/** One `/v1/send` body to a new recipient: literal subject and body, or the bench's template with `data`. */
function sendBody(templateId: string | undefined): Record<string, unknown> {
  const n = sequence++;
  const to = `user${n}@example.com`;
  return templateId
    ? { template: templateId, to, data: { name: `Name${n}`, plan: n % 2 ? 'pro' : 'free', order: { id: n, total: (n % 90) + 10 } } }
    : { from: `hello@${DOMAIN}`, to, subject: 'Your receipt', body: `<p>Hi there, your order ${n} is on its way.</p>` };
}

/** Drives the server at `url` with CONNECTIONS keep-alive connections for `seconds`; answers its figures. */
async function drive(url: string, key: string, seconds: number, templateId: string | undefined): Promise<Load> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: BATCH ? '/v1/send/batch' : '/v1/send',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify(BATCH ? Array.from({ length: BATCH }, () => sendBody(templateId)) : sendBody(templateId)),
        }),
        onResponse: (status, body) => {
          if (status !== 200 || !body.startsWith('{"success":true,"data":')) return;
          const data = JSON.parse(body).data;
          const emails: { email: string }[] = BATCH ? data.flatMap((item: { emails: unknown[] }) => item.emails) : data.emails;
          for (const { email } of emails) accepted.add(email);
        },
      },
    ],
  });
  const failures = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, stats]) => `${stats.count ?? 0} x HTTP ${status}`);
  if (result.errors > 0) failures.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  return { requestsPerSecond: result['2xx'] / result.duration, ok: result['2xx'], p50: result.latency.p50, p99: result.latency.p99, failures };
}

/** CPU seconds so far of Herald's Node process, its embedded Postgres and its Temporal dev server, and of this process (load generator and SES). */
function cpuNow(herald: HeraldProcess, dataDir: string): number[] {
  const temporal = descendants(herald.pid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'temporal';
    } catch {
      return false;
    }
  });
  return [ownCpuSeconds(herald.pid), treeCpuSeconds(pidFromFile(path.join(dataDir, 'postgres', 'postmaster.pid'))), treeCpuSeconds(temporal), ownCpuSeconds(process.pid)];
}

/** The floor, in a process of its own (this file, forked): parse the JSON body, one INSERT of it into a scratch table, answer. */
function serveBaseline(): void {
  process.once('message', async ({ databaseUrl }: { databaseUrl: string }) => {
    const setup = new Pool({ connectionString: databaseUrl, max: 1 });
    await setup.query('CREATE TABLE IF NOT EXISTS bench_send_baseline (id bigserial PRIMARY KEY, body jsonb, created_at timestamptz DEFAULT now())');
    await setup.end();
    const server = await startBaselineServer(databaseUrl, BASELINE_POOL, (pool, body) => pool.query('INSERT INTO bench_send_baseline (body) VALUES ($1)', [JSON.stringify(body)]));
    process.once('disconnect', () => void server.stop().then(() => process.exit(0)));
    process.send!({ port: server.port });
  });
}

/** Forks this file as the baseline server on the database; answers its URL and how to stop it. */
async function startBaseline(databaseUrl: string): Promise<{ url: string; stop: () => void }> {
  const child = fork(__filename, ['baseline'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.send({ databaseUrl });
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.disconnect() };
}

/** Stores the bench's template in the project; answers its id. */
async function createTemplate(url: string, key: string): Promise<string> {
  const body = [
    "<p>Hi {{ data.name | default: 'there' }},</p>",
    '<p>Order #{{ data.order.id }} for ${{ data.order.total }} is confirmed.</p>',
    "{% if data.plan == 'pro' %}<p>Your pro plan ships it today.</p>{% endif %}",
  ].join('');
  const created = await new Client(url).post('/templates', { name: 'Receipt', subject: 'Order {{ data.order.id }}', body, from: `hello@${DOMAIN}`, type: 'TRANSACTIONAL' }, { key });
  if (created.status !== 201) throw new Error(`template: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.data?.id ?? created.body.id;
}

function row(name: string, load: Load, emailsPerSecond: number): string {
  const cells = [load.requestsPerSecond.toFixed(0), emailsPerSecond.toFixed(0), load.p50.toFixed(1), load.p99.toFixed(1), String(load.ok)];
  return name.padEnd(26) + cells.map((cell) => cell.padStart(11)).join('') + `   ${load.failures.join(', ') || 'none'}`;
}

async function main(): Promise<boolean> {
  buildHerald();
  const herald = await SesHerald.create('bench-send', 0);
  herald.env.RATE_LIMIT_PER_MINUTE = '100000000';
  if (CPU_PROFILE_DIR) herald.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`];
  const { ses, dataDir, env } = herald;
  try {
    await herald.start();
    const url = herald.apiUrl;
    const { project, key } = await herald.projectWithDomain('Send bench', DOMAIN);
    const templateId = TEMPLATE ? await createTemplate(url, key) : undefined;
    const shape = `${BATCH ? `/v1/send/batch of ${BATCH}` : '/v1/send'}, ${TEMPLATE ? 'a template with data' : 'subject and body'}`;
    console.log(`Herald (npm start, SES at ${ses.endpoint}): ${shape}; warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s with ${CONNECTIONS} connections${KILL ? '; every process SIGKILLed halfway' : ''}`);

    await drive(url, key, WARMUP_SECONDS, templateId);
    const atStart = herald.messagesPerEmail(project.id).size;
    let killed: Promise<{ inFlight: number; restartSeconds: number }> | undefined;
    if (KILL) {
      killed = new Promise((resolve, reject) =>
        setTimeout(async () => {
          try {
            await herald.disconnect();
            await herald.herald!.killAll();
            const killedAt = performance.now();
            await herald.start();
            const restartSeconds = (performance.now() - killedAt) / 1000;
            // Sends of the dead run SES took but Herald never recorded: they go out again.
            await waitFor(() => ses.inFlight === 0, 10_000, 20);
            const { rows } = await herald.db.query(`SELECT id FROM emails WHERE project_id = $1 AND status = 'QUEUED'`, [project.id]);
            const atSes = herald.messagesPerEmail(project.id);
            resolve({ inFlight: rows.filter(({ id }) => atSes.has(id)).length, restartSeconds });
          } catch (err) {
            reject(err);
          }
        }, (SECONDS * 1000) / 2),
      );
    }
    const cpuBefore = cpuNow(herald.herald!, dataDir);
    const load = await drive(url, key, SECONDS, templateId);
    const loadEnded = performance.now();
    const cpu = cpuNow(herald.herald!, dataDir).map((seconds, i) => seconds - cpuBefore[i]);
    const deliveredInLoad = herald.messagesPerEmail(project.id).size - atStart;
    console.log(`Load done: ${load.requestsPerSecond.toFixed(0)} calls/s, p99 ${load.p99} ms, CPU s (Node, Postgres, Temporal, load generator) ${cpu.map((seconds) => seconds.toFixed(1)).join(', ')}; waiting for the backlog`);
    const kill = await killed;
    const drained = await waitFor(() => {
      const atSes = herald.messagesPerEmail(project.id);
      return [...accepted].every((id) => atSes.has(id));
    }, DRAIN_TIMEOUT_MS, 200);
    const drainSeconds = (performance.now() - loadEnded) / 1000;
    const counts = herald.messagesPerEmail(project.id);
    const missing = [...accepted].filter((id) => !counts.has(id)).length;
    const duplicates = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);

    // The baseline on the same Postgres, Herald idle beside it.
    const baselineServer = await startBaseline(heraldDatabaseUrl(dataDir, env.EMBEDDED_POSTGRES_PORT));
    await drive(baselineServer.url, key, WARMUP_SECONDS, templateId);
    const baseline = await drive(baselineServer.url, key, SECONDS, templateId);
    baselineServer.stop();

    const perCall = BATCH || 1;
    const ratio = load.requestsPerSecond / baseline.requestsPerSecond;
    const deliveredPerSecond = deliveredInLoad / SECONDS;
    const acceptedPerSecond = load.requestsPerSecond * perCall;
    console.log('');
    console.log(''.padEnd(26) + ['calls/s', 'emails/s', 'p50 ms', 'p99 ms', '2xx'].map((cell) => cell.padStart(11)).join('') + '   non-2xx / errors');
    console.log(row(`Herald ${BATCH ? 'POST /v1/send/batch' : 'POST /v1/send'}`, load, acceptedPerSecond));
    console.log(row('baseline one INSERT', baseline, baseline.requestsPerSecond * perCall));
    console.log('');
    console.log(`Herald / baseline calls: ${ratio.toFixed(2)} (aim: at least ${AIM})`);
    console.log(`Delivered while the load ran: ${count(deliveredInLoad)} in ${SECONDS} s -> ${count(deliveredPerSecond)}/s, ${(deliveredPerSecond / acceptedPerSecond).toFixed(2)} of accepted (aim: at least 0.8)`);
    if (!kill) {
      const perEmailMs = (seconds: number) => ((seconds * 1000) / Math.max(1, load.ok * perCall)).toFixed(2);
      const [node, postgres, temporal, generator] = cpu;
      console.log(
        `CPU while the load ran, ms per accepted email: Herald's Node process ${perEmailMs(node)}, Postgres ${perEmailMs(postgres)}, Temporal ${perEmailMs(temporal)}, ` +
          `load generator and SES ${perEmailMs(generator)} (${(cpu.reduce((a, b) => a + b, 0) / SECONDS).toFixed(2)} of ${cpus().length} cores busy in all)`,
      );
    }
    console.log(`Backlog after the load: ${drained ? `drained in ${drainSeconds.toFixed(1)} s` : `NOT drained after ${drainSeconds.toFixed(0)} s`}`);
    if (kill) console.log(`Kill: npm start again took ${kill.restartSeconds.toFixed(1)} s; sends in flight at the kill ${kill.inFlight}`);
    console.log(`Accepted (answered 200, warm-up included): ${count(accepted.size)} emails; missing at SES ${missing}; duplicates ${duplicates}${kill ? ` (allowed: ${kill.inFlight})` : ''}`);
    return drained && missing === 0 && duplicates <= (kill?.inFlight ?? 0);
  } finally {
    await herald.close();
  }
}

if (process.argv[2] === 'baseline') serveBaseline();
else runBench(main);
