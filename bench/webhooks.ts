/**
 * `npm run bench:webhooks`: a MARKETING campaign to BENCH_CONTACTS (10000) subscribed contacts,
 * sent through the real API and the `campaign/<id>` workflow to a local SES v2 server answering
 * after BENCH_SES_DELAY_MS (5), twice: first for a project without webhook endpoints, then for
 * one whose endpoint subscribes to every `email.*` type on a local receiver (signed POSTs by the
 * `webhook-dispatch` and `hook/...` workflows). Prints each campaign's emails per second (from
 * `POST /campaigns/{id}/send` until SES holds a message for every contact), the webhook events
 * per second the receiver took during the campaign and until the last one, and events received
 * against those recorded: missing and duplicate `webhook-id`s. Fails when an event is missing or
 * a campaign is not SENT.
 *
 * `--deliver-after`: the `webhook-dispatch` workflow starts only once the second campaign is sent,
 * so that its emails/s shows what recording the events costs the campaign, apart from the
 * delivery workflows running beside it, and the receiver's rate shows delivery alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { connectTemporal } from '../src/orchestration/client';
import { ensureWebhookDispatch } from '../src/orchestration/webhook-dispatch';
import { Client, signupWithProject } from '../test/support/api';
import { emailTag, SesServer } from '../test/support/ses-server';
import type { WorkerReport } from './campaign-worker';
import { startBenchStack, type BenchApiStack } from './stack';
import { buildWorkflowBundle, builtWorkerArgs, runBench, waitFor, withScratch } from './support';
import { WEBHOOK_EVENT_TYPES } from '../src/webhooks/webhook-events';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const SES_DELAY_MS = Number(process.env.BENCH_SES_DELAY_MS ?? 5);
const EMAIL_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith('email.'));
const POLL_MS = 20;
/** A run gives up after this long without a new message at SES, or a new event at the receiver. */
const STALL_TIMEOUT_MS = 2 * 60_000;
const SENT_TIMEOUT_MS = 60_000;
const DELIVER_AFTER = process.argv.includes('--deliver-after');

const count = (n: number) => Math.round(n).toLocaleString('en');

/** The local webhook receiver: answers every POST 204 and keeps each one's `webhook-id` and arrival time. */
class Receiver {
  readonly arrivals: { id: string; at: number }[] = [];
  readonly ids = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined = undefined;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['webhook-id'] ?? '');
        receiver!.arrivals.push({ id, at: performance.now() });
        receiver!.ids.add(id);
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/herald`);
    return receiver;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The bench worker (bench/campaign-worker.ts) in a process of its own, on the prebuilt workflow bundle; resolves once it polls. */
async function startWorker(env: Record<string, string | undefined>, bundlePath: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...builtWorkerArgs(), `--workflow-bundle=${bundlePath}`], {
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', () => reject(new Error('The worker process exited before it was ready')));
    child.on('message', (report: WorkerReport) => {
      if (report.type === 'ready') resolve();
    });
  });
  return child;
}

/** Distinct emails of a project at SES so far, taken from the local server's list (which is emptied as it is read). */
function sesEmailsOf(ses: SesServer, projectId: string, seen: Set<string>): number {
  for (const email of ses.emails.splice(0)) if (emailTag(email, 'projectId') === projectId) seen.add(emailTag(email, 'emailId') ?? '');
  return seen.size;
}

/** Polls `progress` until it reaches `target`; false when it stood still for STALL_TIMEOUT_MS. */
async function until(progress: () => number, target: number): Promise<boolean> {
  let last = -1;
  let movedAt = performance.now();
  for (let now = progress(); now < target; now = progress()) {
    if (now !== last) [last, movedAt] = [now, performance.now()];
    else if (performance.now() - movedAt > STALL_TIMEOUT_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/** A project with a verified domain, CONTACTS subscribed contacts and a DRAFT campaign to them all. */
async function campaignProject(stack: BenchApiStack, client: Client, name: string) {
  const { project } = await signupWithProject(stack, name);
  const key = project.secretKey as string;
  const domain = `${project.id}.bench.example.com`;
  await stack.dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, domain]);
  await stack.dataSource.query(
    `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'contact' || i || '@example.com', true FROM generate_series(1, $2) AS i`,
    [project.id, CONTACTS],
  );
  await stack.dataSource.query('ANALYZE contacts');
  const created = await client.post(
    '/campaigns',
    { name, subject: 'News for {{ email }}', body: '<p>Hello</p>', from: `news@${domain}`, type: 'MARKETING', audienceType: 'ALL' },
    { key },
  );
  if (created.status !== 201) throw new Error(`POST /campaigns answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { projectId: project.id as string, key, campaignId: created.body.data.id as string };
}

/** What one campaign run measured. */
interface CampaignRun {
  status: string;
  seconds: number;
  delivered: number;
  startedAt: number;
  endedAt: number;
}

/** Sends the campaign and waits until SES holds a message for each contact and the campaign is SENT. */
async function sendCampaign(ses: SesServer, client: Client, target: { projectId: string; key: string; campaignId: string }): Promise<CampaignRun> {
  const seen = new Set<string>();
  ses.emails.splice(0);
  const startedAt = performance.now();
  const sent = await client.post(`/campaigns/${target.campaignId}/send`, {}, { key: target.key });
  if (sent.status !== 200) throw new Error(`POST /campaigns/{id}/send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  await until(() => sesEmailsOf(ses, target.projectId, seen), CONTACTS);
  const endedAt = performance.now();
  await waitFor(async () => (await client.get(`/campaigns/${target.campaignId}`, { key: target.key })).body.status !== 'SENDING', SENT_TIMEOUT_MS, POLL_MS);
  const { status } = (await client.get(`/campaigns/${target.campaignId}`, { key: target.key })).body;
  return { status, seconds: (endedAt - startedAt) / 1000, delivered: seen.size, startedAt, endedAt };
}

/** The `webhook-id`s recorded for the endpoint: one per event it subscribes to. */
async function recordedIds(dataSource: DataSource, endpointId: string): Promise<Set<string>> {
  const rows: { id: string }[] = await dataSource.query(`SELECT 'msg_' || event_id AS id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId]);
  return new Set(rows.map((row) => row.id));
}

function main(): Promise<boolean> {
  return withScratch('webhooks', async (scratch) => {
    const ses = await SesServer.start();
    ses.latencyMs = SES_DELAY_MS;
    scratch.onCleanup(() => ses.close());
    const receiver = await Receiver.start();
    scratch.onCleanup(() => receiver.close());
    // The SDK's default credential chain reads these; the local SES server accepts any.
    process.env.AWS_ACCESS_KEY_ID = 'bench';
    process.env.AWS_SECRET_ACCESS_KEY = 'bench';
    const stack = await startBenchStack(scratch, { SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint, WEBHOOK_ALLOW_PRIVATE: 'true' }, undefined, { worker: false });
    const client = new Client(stack.url);
    const plain = await campaignProject(stack, client, 'Without endpoints');
    const hooked = await campaignProject(stack, client, 'With an endpoint');
    const endpoint = await client.post('/webhooks', { url: receiver.url, events: EMAIL_TYPES, description: 'bench receiver' }, { key: hooked.key });
    if (endpoint.status !== 201) throw new Error(`POST /webhooks answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);

    const bundlePath = path.join(scratch.root, 'workflow-bundle.js');
    await buildWorkflowBundle(bundlePath);
    const worker = await startWorker(stack.env, bundlePath);
    scratch.onCleanup(async () => {
      worker.kill('SIGKILL');
    });
    const temporal = await connectTemporal(stack.env.TEMPORAL_ADDRESS!, stack.config.temporalNamespace);
    scratch.onCleanup(temporal.close);
    if (!DELIVER_AFTER) await ensureWebhookDispatch(temporal.client, stack.config.taskQueue);
    console.log(
      `Campaigns to ${count(CONTACTS)} subscribed contacts; local SES answering after ${SES_DELAY_MS} ms; worker in its own process` +
        (DELIVER_AFTER ? '; webhook delivery starts once both campaigns are sent' : ''),
    );

    const rate = (run: CampaignRun) => `${count(run.delivered / run.seconds)} emails/s (${count(run.delivered)} at SES in ${run.seconds.toFixed(1)} s, ${run.status})`;
    const without = await sendCampaign(ses, client, plain);
    console.log(`Campaign without endpoints: ${rate(without)}`);
    const withHook = await sendCampaign(ses, client, hooked);
    console.log(`Campaign with an endpoint subscribed to email.*: ${rate(withHook)}`);
    if (DELIVER_AFTER) await ensureWebhookDispatch(temporal.client, stack.config.taskQueue);
    const expected = await recordedIds(stack.dataSource, endpoint.body.id ?? endpoint.body.data?.id);
    const allReceived = await until(() => [...expected].filter((id) => receiver.ids.has(id)).length, expected.size);
    const lastAt = Math.max(...receiver.arrivals.map((arrival) => arrival.at));
    const firstAt = Math.min(...receiver.arrivals.map((arrival) => arrival.at));
    const duringCampaign = receiver.arrivals.filter((arrival) => arrival.at <= withHook.endedAt).length;
    const missing = [...expected].filter((id) => !receiver.ids.has(id)).length;
    const unexpected = [...receiver.ids].filter((id) => !expected.has(id)).length;
    const duplicates = receiver.arrivals.length - receiver.ids.size;

    console.log(
      `Webhook events: ${count(duringCampaign)} received during the campaign (${count(duringCampaign / withHook.seconds)}/s); ` +
        `all ${count(receiver.ids.size)} by ${((lastAt - withHook.startedAt) / 1000).toFixed(1)} s after POST send ` +
        `(${count(receiver.ids.size / ((lastAt - withHook.startedAt) / 1000))}/s from the send, ` +
        `${count(receiver.ids.size / Math.max((lastAt - firstAt) / 1000, 0.001))}/s from the first event to the last)`,
    );
    const passed = allReceived && missing === 0 && unexpected === 0 && without.status === 'SENT' && withHook.status === 'SENT' && expected.size >= CONTACTS;
    console.log(
      `Events recorded ${count(expected.size)}, received ${count(receiver.ids.size)}, missing ${count(missing)}, ` +
        `unexpected ${count(unexpected)}, duplicate webhook-ids ${count(duplicates)}: ${passed ? 'PASS' : 'FAIL'}`,
    );
    return passed;
  });
}

runBench(main);
