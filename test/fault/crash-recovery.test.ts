import path from 'node:path';
import { DELIVERY_CONCURRENCY } from '../../src/campaigns/campaign-runner';
import { processState } from '../../src/runtime/process-table';
import { HeraldProcess } from '../support/herald-process';
import { SesHerald } from '../support/ses-herald';
import { until } from '../support/wait';

/**
 * `npm start` as a user runs it, SIGKILLed under load twice (its own process only, then every
 * process at once) and started again on the same DATA_DIR each time: a campaign in flight, a
 * CSV import, a scheduled campaign and a workflow execution in a DELAY all finish, nobody is
 * missed, and only the sends in flight at a kill are repeated.
 */
const CAMPAIGN_CONTACTS = 3_000;
/** Large enough (about 3.7 MB) that the import is still running at the first kill. */
const IMPORT_ROWS = 150_000;
/** Slow enough that the campaign is still sending when it is killed. */
const SES_LATENCY_MS = 100;
const DOMAIN = 'crash.example.com';
const SENT_TIMEOUT_MS = 6 * 60_000;

const exists = (pid: number) => processState(pid) === 'running';

describe('crash recovery of npm start', () => {
  let herald: SesHerald;

  beforeAll(async () => {
    herald = await SesHerald.create('crash', SES_LATENCY_MS);
    // The embedded Postgres's size, as a user sets it (64MB by default, see test/fault/embedded-postgres.test.ts).
    herald.env.EMBEDDED_POSTGRES_SHARED_BUFFERS = '48MB';
  });

  afterAll(async () => {
    await herald.close();
  });

  /** Messages SES holds per email of a campaign (Herald tags each message with its email id). */
  const campaignMessages = async (campaignId: string) => {
    const { rows } = await herald.db.query(`SELECT id, project_id FROM emails WHERE campaign_id = $1`, [campaignId]);
    const held = rows.length > 0 ? herald.messagesPerEmail(rows[0].project_id) : new Map<string, number>();
    return new Map<string, number>(rows.map((row) => [row.id, held.get(row.id) ?? 0]));
  };
  const distinctSent = async (campaignId: string) => [...(await campaignMessages(campaignId)).values()].filter((n) => n > 0).length;

  it('finishes a campaign, an import, a scheduled campaign and a delayed workflow step across two kills', async () => {
    const first = await herald.start();
    expect(first.output()).toMatch(/Temporal\s+127\.0\.0\.1:\d+ \(dev-server\)/);
    const { project, key, client } = await herald.projectWithDomain('Crash', DOMAIN);
    const db = () => herald.db;
    const post = (route: string, body: unknown) => client.post(route, body, { key });
    await db().query(
      `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'reader' || i || '@campaign.test', true FROM generate_series(1, $2::int) AS i`,
      [project.id, CAMPAIGN_CONTACTS],
    );
    const content = { subject: 'Hello', body: '<p>Hello {{ email }}</p>', from: `news@${DOMAIN}` };
    const campaign = async (name: string, suffix: string) => {
      const created = await post('/campaigns', {
        name, ...content, audienceType: 'FILTERED',
        audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'endsWith', value: suffix }] }] },
      });
      expect(created.status).toBe(201);
      return created.body.data?.id ?? created.body.id;
    };

    // A workflow execution that waits in a 20-second DELAY across the first kill.
    const workflowId = (await post('/workflows', { name: 'Welcome', triggerConfig: { eventName: 'signed_up' } })).body.id;
    const delay = (await post(`/workflows/${workflowId}/steps`, { type: 'DELAY', config: { amount: 20, unit: 'seconds' } })).body.id;
    const send = (await post(`/workflows/${workflowId}/steps`, { type: 'SEND_EMAIL', config: { ...content, type: 'TRANSACTIONAL' } })).body.id;
    expect((await post(`/workflows/${workflowId}/transitions`, { fromStepId: delay, toStepId: send })).status).toBe(201);
    expect((await client.patch(`/workflows/${workflowId}`, { enabled: true }, { key })).status).toBe(200);
    expect((await client.post('/v1/track', { email: 'waiting@flow.test', event: 'signed_up' }, { key })).status).toBe(200);

    // A campaign scheduled to fire while Herald is down or coming back.
    await db().query(`INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, 'early@scheduled.test', true)`, [project.id]);
    const scheduled = await campaign('Scheduled', '@scheduled.test');
    const fireAt = new Date(Date.now() + 30_000).toISOString();
    expect((await post(`/campaigns/${scheduled}/send`, { scheduledFor: fireAt })).body.data.status).toBe('SCHEDULED');

    // An import under way.
    const csv = ['email,n', ...Array.from({ length: IMPORT_ROWS }, (_, i) => `row${i}@import.test,${i}`)].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const imported = await fetch(`${herald.apiUrl}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(imported.status).toBe(202);
    const jobPath = `/contacts/import/${((await imported.json()) as { jobId: string }).jobId}`;
    await until(() => client.get(jobPath, { key }), (job) => job.body.processed > 0, 'the import to start', 60_000);

    // The campaign, killed at 30%: Herald's own process only.
    const running = await campaign('Running', '@campaign.test');
    expect((await post(`/campaigns/${running}/send`, {})).status).toBe(200);
    await until(() => distinctSent(running), (n) => n >= CAMPAIGN_CONTACTS * 0.3, 'the campaign at 30%', 120_000);
    const importAtKill = (await client.get(jobPath, { key })).body;
    const scheduledAtKill = (await client.get(`/campaigns/${scheduled}`, { key })).body;
    const executionAtKill = (await client.get(`/workflows/${workflowId}/executions`, { key })).body.data[0];
    const parts = await first.killMain();
    expect(parts.length).toBeGreaterThan(1);
    await until(async () => parts.filter(exists), (left) => left.length === 0, 'the parts of the killed run to end', 40_000);
    await herald.start();
    // The import, the scheduled campaign and the DELAY were all under way at the kill.
    expect(importAtKill).toMatchObject({ status: 'RUNNING' });
    expect(scheduledAtKill.data ?? scheduledAtKill).toMatchObject({ status: 'SCHEDULED' });
    expect(executionAtKill).toMatchObject({ currentStepId: delay });
    expect(['RUNNING', 'WAITING']).toContain(executionAtKill.status);
    expect(importAtKill.processed).toBeLessThan(IMPORT_ROWS);

    // Sending resumes; at 60% every process is killed at once.
    await until(() => distinctSent(running), (n) => n >= CAMPAIGN_CONTACTS * 0.6, 'the campaign at 60%', 240_000);
    const scheduledAtSecondKill = (await client.get(`/campaigns/${scheduled}`, { key })).body;
    await herald.disconnect();
    await herald.herald!.killAll();
    await herald.start();

    const final = await until(
      () => client.get(`/campaigns/${running}`, { key }),
      (answer) => answer.body.data?.status === 'SENT' || answer.body.status === 'SENT',
      'the campaign to be SENT',
      SENT_TIMEOUT_MS,
    );
    const campaignRow = final.body.data ?? final.body;
    expect(campaignRow).toMatchObject({ totalRecipients: CAMPAIGN_CONTACTS, sentCount: CAMPAIGN_CONTACTS });
    const perEmail = await campaignMessages(running);
    const { rows: recipients } = await db().query(`SELECT id, status FROM emails WHERE campaign_id = $1`, [running]);
    expect(recipients).toHaveLength(CAMPAIGN_CONTACTS);
    expect(recipients.filter((email) => !perEmail.get(email.id))).toEqual([]);
    const duplicates = [...perEmail.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    expect(duplicates).toBeLessThanOrEqual(2 * DELIVERY_CONCURRENCY);

    const job = await until(() => client.get(jobPath, { key }), (answer) => answer.body.status === 'COMPLETED', 'the import to complete', 180_000);
    expect(job.body).toMatchObject({ total: IMPORT_ROWS, processed: IMPORT_ROWS, succeeded: IMPORT_ROWS, failed: 0 });
    const { rows: [importedRows] } = await db().query(
      `SELECT count(*)::int AS n, count(DISTINCT data->>'n')::int AS distinct FROM contacts WHERE project_id = $1 AND email LIKE '%@import.test'`,
      [project.id],
    );
    expect(importedRows).toEqual({ n: IMPORT_ROWS, distinct: IMPORT_ROWS });

    const fired = await until(() => client.get(`/campaigns/${scheduled}`, { key }), (answer) => (answer.body.data ?? answer.body).status === 'SENT', 'the scheduled campaign', 120_000);
    expect(fired.body.data ?? fired.body).toMatchObject({ sentCount: 1 });
    const { rows: scheduledEmails } = await db().query(`SELECT id, to_email FROM emails WHERE campaign_id = $1`, [scheduled]);
    expect(scheduledEmails).toEqual([expect.objectContaining({ to_email: 'early@scheduled.test' })]);
    // Sent once; twice only when its send may have been in flight at the second kill (SES has no idempotency key).
    const scheduledSends = (await campaignMessages(scheduled)).get(scheduledEmails[0].id);
    const inFlightAtKill = (scheduledAtSecondKill.data ?? scheduledAtSecondKill).status === 'SENDING';
    expect(inFlightAtKill ? [1, 2] : [1]).toContain(scheduledSends);

    const execution = await until(
      () => client.get(`/workflows/${workflowId}/executions`, { key }),
      (answer) => answer.body.data?.[0]?.status === 'COMPLETED',
      'the delayed workflow execution to complete',
      120_000,
    );
    expect(execution.body.data).toHaveLength(1);
    const { rows: stepEmails } = await db().query(`SELECT id FROM emails WHERE project_id = $1 AND to_email = 'waiting@flow.test'`, [project.id]);
    expect(stepEmails).toHaveLength(1);
    expect(herald.messagesPerEmail(project.id).get(stepEmails[0].id)).toBe(1);

    // A second Herald on the same DATA_DIR is refused with one clear message, and the first keeps running.
    const second = await HeraldProcess.start(herald.env, path.join(herald.dataDir, 'second-output.log')).then(
      () => 'started',
      (err: Error) => err.message,
    );
    expect(second).toMatch(new RegExp(`Herald failed to start: DATA_DIR: another Herald is running on ${herald.dataDir} \\(pid ${herald.herald!.pid}\\)`));
    expect(second).not.toMatch(/\n\s+at /);
    expect((await client.get('/health')).status).toBe(200);

    // The data written before the kills is all there, on a Postgres started again with the size it was given.
    expect((await db().query('SHOW shared_buffers')).rows).toEqual([{ shared_buffers: '48MB' }]);
    const { rows: [counts] } = await db().query(`SELECT count(*)::int AS contacts FROM contacts WHERE project_id = $1`, [project.id]);
    expect(counts.contacts).toBe(CAMPAIGN_CONTACTS + IMPORT_ROWS + 2);
  }, 15 * 60_000);
});
