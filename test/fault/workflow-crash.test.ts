import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client as PgClient } from 'pg';
import { Client, signupWithProject } from '../support/api';
import { heraldDatabase, heraldPorts, HeraldProcess, removeDataDir } from '../support/herald-process';
import { emailTag, SesServer } from '../support/ses-server';
import { until } from '../support/wait';

/**
 * `npm start` SIGKILLed (every process at once) while contacts' workflow executions send their
 * SEND_EMAIL step, which runs as a local activity inside a workflow task, then started again on
 * the same DATA_DIR: every execution ends EXITED with one email record, every contact gets its
 * email, and only the sends cut off in flight at the kill are repeated.
 */
const CONTACTS = 60;
/** Slow enough that sends are in flight at the kill. */
const SES_LATENCY_MS = 150;
const DOMAIN = 'flow-crash.example.com';

describe('crash recovery of workflow executions', () => {
  let ses: SesServer;
  let dataDir: string;
  let env: Record<string, string>;
  let herald: HeraldProcess | undefined;
  let db: PgClient;

  beforeAll(async () => {
    ses = await SesServer.start();
    ses.latencyMs = SES_LATENCY_MS;
    dataDir = mkdtempSync(path.join(tmpdir(), 'herald-flow-crash-'));
    env = {
      ...(await heraldPorts()),
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      SES_REGION: 'us-east-1',
      SES_ENDPOINT: ses.endpoint,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      TEMPORAL_TASK_QUEUE: 'herald',
    };
  });

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await herald?.stop();
    if (herald) process.stderr.write(`Herald's output:\n${herald.output().slice(-6000)}\n`);
    await ses.close();
    removeDataDir(dataDir);
  });

  it('sends every contact its workflow email across a kill of every process, repeating only the sends in flight', async () => {
    herald = await HeraldProcess.start(env, path.join(dataDir, 'herald-output.log'));
    db = await heraldDatabase(dataDir, env.EMBEDDED_POSTGRES_PORT);
    const api = { url: `http://127.0.0.1:${env.PORT}` };
    const { project } = await signupWithProject(api, 'Flow crash');
    const key: string = project.secretKey;
    const client = new Client(api.url);
    const post = (route: string, body: unknown) => client.post(route, body, { key });
    await db.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, DOMAIN]);

    const workflowId = (await post('/workflows', { name: 'Welcome', triggerConfig: { eventName: 'signed_up' } })).body.id;
    const stepIds: string[] = [];
    for (const step of [
      { type: 'DELAY', config: { amount: 1, unit: 'seconds' } },
      { type: 'SEND_EMAIL', config: { subject: 'Hi', body: '<p>Hi</p>', from: `hello@${DOMAIN}`, type: 'TRANSACTIONAL' } },
      { type: 'EXIT', config: {} },
    ]) {
      stepIds.push((await post(`/workflows/${workflowId}/steps`, step)).body.id);
    }
    for (let i = 1; i < stepIds.length; i++) {
      expect((await post(`/workflows/${workflowId}/transitions`, { fromStepId: stepIds[i - 1], toStepId: stepIds[i] })).status).toBe(201);
    }
    expect((await client.patch(`/workflows/${workflowId}`, { enabled: true }, { key })).status).toBe(200);
    const tracked = await Promise.all(
      Array.from({ length: CONTACTS }, (_, i) => client.post('/v1/track', { email: `contact${i}@flow.test`, event: 'signed_up' }, { key })),
    );
    expect(tracked.map((answer) => answer.status)).toEqual(Array(CONTACTS).fill(200));

    const messages = () => ses.emails.filter((email) => emailTag(email, 'projectId') === project.id);
    await until(async () => messages().length, (n) => n >= CONTACTS / 4, 'a quarter of the emails to reach SES', 120_000);
    const { rows: [before] } = await db.query(`SELECT count(*)::int AS sent FROM emails WHERE project_id = $1 AND source = 'WORKFLOW' AND status = 'SENT'`, [project.id]);
    await db.end().catch(() => undefined);
    await herald.killAll();
    // Requests SES took before the kill are answered (and kept) after its latency.
    await new Promise((resolve) => setTimeout(resolve, 2 * SES_LATENCY_MS));
    const cutOff = messages().length - before.sent;
    expect(messages().length).toBeLessThan(CONTACTS);

    herald = await HeraldProcess.start(env, path.join(dataDir, 'herald-output-2.log'));
    db = await heraldDatabase(dataDir, env.EMBEDDED_POSTGRES_PORT);
    const statuses = await until(
      async () => (await db.query(`SELECT status, count(*)::int AS n FROM workflow_executions WHERE workflow_id = $1 GROUP BY status`, [workflowId])).rows,
      (rows) => rows.length === 1 && rows[0].status === 'EXITED' && rows[0].n === CONTACTS,
      'every execution to exit',
      180_000,
    );
    expect(statuses).toEqual([{ status: 'EXITED', n: CONTACTS }]);

    const { rows: emails } = await db.query(`SELECT id, to_email, status FROM emails WHERE project_id = $1 AND source = 'WORKFLOW'`, [project.id]);
    expect(emails).toHaveLength(CONTACTS);
    expect(new Set(emails.map((email) => email.to_email)).size).toBe(CONTACTS);
    expect(emails.filter((email) => email.status !== 'SENT')).toEqual([]);
    await until(async () => new Set(messages().map((email) => emailTag(email, 'emailId'))).size, (n) => n === CONTACTS, 'SES to have every email', 30_000);
    const perEmail = new Map<string, number>();
    for (const email of messages()) perEmail.set(emailTag(email, 'emailId')!, (perEmail.get(emailTag(email, 'emailId')!) ?? 0) + 1);
    expect(emails.filter((email) => !perEmail.get(email.id))).toEqual([]);
    const duplicates = [...perEmail.values()].reduce((sum, n) => sum + n - 1, 0);
    expect(duplicates).toBeLessThanOrEqual(cutOff);
  });
});
