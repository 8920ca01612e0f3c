/**
 * `npm run bench:crash`: `npm start` (embedded Postgres, Temporal dev server, worker and API in
 * one process tree) sends one MARKETING campaign to BENCH_CONTACTS (100000) subscribed contacts
 * through a local SES v2 server answering after BENCH_SES_DELAY_MS (5). At BENCH_KILL_AT (0.3)
 * of the audience delivered, every Herald process is SIGKILLed at once and `npm start` runs
 * again at once on the same DATA_DIR. Prints delivered at the kill, the sends cut off in flight
 * (SES has them, Herald had not recorded them), missing, duplicates, the campaign's final
 * status and sentCount, and how long the restart and the rest of the send took. Fails when a
 * contact is missing, duplicates exceed the sends in flight, or the campaign is not SENT.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client as PgClient } from 'pg';
import { Client, signupWithProject } from '../test/support/api';
import { heraldDatabase, heraldPorts, HeraldProcess, removeDataDir } from '../test/support/herald-process';
import { emailTag, SesServer } from '../test/support/ses-server';
import { runBench, waitFor } from './support';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const SES_DELAY_MS = Number(process.env.BENCH_SES_DELAY_MS ?? 5);
const KILL_AT = Number(process.env.BENCH_KILL_AT ?? 0.3);
const DOMAIN = 'crash.example.com';
const SENT_TIMEOUT_MS = 15 * 60_000;

const count = (n: number) => n.toLocaleString('en');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Messages SES holds for the project, per email id (Herald tags each message with both). */
function messagesPerEmail(ses: SesServer, projectId: string): Map<string, number> {
  const perEmail = new Map<string, number>();
  for (const email of ses.emails) {
    if (emailTag(email, 'projectId') !== projectId) continue;
    const id = emailTag(email, 'emailId')!;
    perEmail.set(id, (perEmail.get(id) ?? 0) + 1);
  }
  return perEmail;
}

runBench(async () => {
  const ses = await SesServer.start();
  ses.latencyMs = SES_DELAY_MS;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-bench-crash-'));
  const env = {
    ...(await heraldPorts()),
    DATA_DIR: dataDir,
    SES_REGION: 'us-east-1',
    SES_ENDPOINT: ses.endpoint,
    // The SDK's default credential chain reads these; the local SES server accepts any.
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
  };
  const logFile = path.join(dataDir, 'herald-output.log');
  let herald = await HeraldProcess.start(env, logFile);
  let db: PgClient = await heraldDatabase(dataDir, env.EMBEDDED_POSTGRES_PORT);
  try {
    const api = { url: `http://127.0.0.1:${env.PORT}` };
    const { project } = await signupWithProject(api, 'Crash bench');
    const key: string = project.secretKey;
    await db.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, DOMAIN]);
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'contact' || i || '@example.com', true FROM generate_series(1, $2::int) AS i`,
      [project.id, CONTACTS],
    );
    await db.query('ANALYZE contacts');
    const client = new Client(api.url);
    const created = await client.post('/campaigns', { name: 'Crash', subject: 'Hello', body: '<p>Hello {{ email }}</p>', from: `news@${DOMAIN}`, audienceType: 'ALL' }, { key });
    const campaignId: string = created.body.data?.id ?? created.body.id;
    const sentAt = performance.now();
    await client.post(`/campaigns/${campaignId}/send`, {}, { key });

    if (!(await waitFor(() => messagesPerEmail(ses, project.id).size >= CONTACTS * KILL_AT, SENT_TIMEOUT_MS, 20))) throw new Error('the campaign never reached the kill point');
    await herald.killAll();
    const killedAt = performance.now();
    const deliveredAtKill = messagesPerEmail(ses, project.id).size;
    await db.end().catch(() => undefined);

    herald = await HeraldProcess.start(env, logFile);
    const restartedAt = performance.now();
    db = await heraldDatabase(dataDir, env.EMBEDDED_POSTGRES_PORT);
    // Requests of the dead run are all answered by now; those SES took but Herald never recorded were in flight.
    await waitFor(() => ses.inFlight === 0, 10_000, 20);
    const { rows: queued } = await db.query(`SELECT id FROM emails WHERE campaign_id = $1 AND status = 'QUEUED'`, [campaignId]);
    const atSes = messagesPerEmail(ses, project.id);
    const inFlight = queued.filter(({ id }) => atSes.has(id)).length;

    let campaign: { status: string; sentCount: number; totalRecipients: number } = { status: '', sentCount: 0, totalRecipients: 0 };
    const sent = await waitFor(async () => {
      const answer = await client.get(`/campaigns/${campaignId}`, { key });
      campaign = answer.body.data ?? answer.body;
      return campaign.status === 'SENT';
    }, SENT_TIMEOUT_MS, 500);
    if (!sent) console.log(`the campaign is still ${campaign.status} after ${seconds(SENT_TIMEOUT_MS)}`);
    const doneAt = performance.now();

    const perEmail = messagesPerEmail(ses, project.id);
    const { rows: recipients } = await db.query(`SELECT id FROM emails WHERE campaign_id = $1`, [campaignId]);
    const missing = recipients.filter(({ id }) => !perEmail.has(id)).length;
    const duplicates = [...perEmail.values()].reduce((sum, n) => sum + n - 1, 0);
    console.log(`contacts                     ${count(CONTACTS)}`);
    console.log(`delivered at the kill        ${count(deliveredAtKill)} (${Math.round((deliveredAtKill / CONTACTS) * 100)}%), after ${seconds(killedAt - sentAt)}`);
    console.log(`restart (npm start again)    ${seconds(restartedAt - killedAt)}`);
    console.log(`sends in flight at the kill  ${count(inFlight)}`);
    console.log(`campaign                     ${campaign.status}, sentCount ${count(campaign.sentCount)}, totalRecipients ${count(campaign.totalRecipients)}`);
    console.log(`missing                      ${count(missing)}`);
    console.log(`duplicates                   ${count(duplicates)}`);
    console.log(`restart to SENT              ${seconds(doneAt - restartedAt)}`);
    return campaign.status === 'SENT' && campaign.sentCount === CONTACTS && missing === 0 && duplicates <= inFlight;
  } finally {
    await db.end().catch(() => undefined);
    await herald.stop();
    await ses.close();
    removeDataDir(dataDir);
  }
});
