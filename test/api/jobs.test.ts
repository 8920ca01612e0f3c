import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { connectTestTemporal, startTestWorker, type TestTemporal, type TestWorker } from '../support/worker';
import { WORKER_PROCESS_ARGS } from '../../src/orchestration/workflow-thread-guard';

/** Sends a CSV as multipart field `file`. */
async function upload(api: TestApi, key: string, csv: string | Buffer, filename = 'contacts.csv') {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), filename);
  const response = await fetch(`${api.url}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

/** Polls a job until it reaches a final state. */
async function settle(client: Client, key: string, path: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await client.get(path, { key });
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(answer.body.status)) return answer.body;
    if (Date.now() > deadline) throw new Error(`job still ${answer.body.status} after ${timeoutMs} ms: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A task queue of this file's own, so workers of other test files never take its workflows. */
const env = { TEMPORAL_TASK_QUEUE: 'jobs-test' };

describe('CSV imports and bulk jobs', () => {
  let temporal: TestTemporal;
  let api: TestApi;
  let worker: TestWorker | undefined;
  let client: Client;
  let key: string;
  let projectId: string;

  beforeAll(async () => {
    temporal = await connectTestTemporal();
    api = await startApi({ env, temporal: temporal.client });
    client = new Client(api.url);
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
    await temporal.close();
  });
  beforeEach(async () => {
    const { project } = await signupWithProject(api);
    key = project.secretKey;
    projectId = project.id;
  });

  describe('with a worker', () => {
    beforeAll(async () => {
      worker = await startTestWorker(api.dataSource, env);
    });
    afterAll(async () => {
      await worker?.close();
      worker = undefined;
    });

    it('imports a CSV through workflow import/<jobId> and reports the job', async () => {
      const csv = [
        ' Email ,Subscribed,first name,plan,zip,seats,id',
        'ada@example.com,yes,Ada,pro,02134,3,ignored',
        'BOB@example.com,0,Bob,,10001,,',
        'not-an-email,true,X,free,1,1,',
        'carol@example.com,,Carol,free,,,',
        'ada@example.com,,Ada L.,,,,',
      ].join('\n');
      const queued = await upload(api, key, csv);
      expect(queued.status).toBe(202);
      expect(queued.body).toEqual({ jobId: expect.any(String) });
      const description = await temporal.client.workflow.getHandle(`import/${queued.body.jobId}`).describe();
      expect(description.type).toBe('importContacts');

      const job = await settle(client, key, `/contacts/import/${queued.body.jobId}`);
      expect(job).toEqual({
        jobId: queued.body.jobId,
        type: 'IMPORT',
        status: 'COMPLETED',
        total: 5,
        processed: 5,
        succeeded: 4,
        failed: 1,
        errors: [{ row: 3, message: expect.stringContaining('not-an-email') }],
        createdAt: expect.any(String),
        completedAt: expect.any(String),
      });
      const rows = await api.dataSource.query('SELECT email, subscribed, data FROM contacts WHERE project_id = $1 ORDER BY email', [projectId]);
      expect(rows).toEqual([
        { email: 'ada@example.com', subscribed: true, data: { 'first name': 'Ada L.', plan: 'pro', zip: '02134', seats: 3 } },
        { email: 'bob@example.com', subscribed: false, data: { 'first name': 'Bob', zip: 10001 } },
        { email: 'carol@example.com', subscribed: true, data: { 'first name': 'Carol', plan: 'free' } },
      ]);
      const fields = await client.get('/contacts/fields', { key });
      const types = Object.fromEntries(fields.body.fields.map((f: { field: string; type: string }) => [f.field, f.type]));
      expect(types).toEqual(expect.objectContaining({ 'data.first name': 'string', 'data.zip': 'string', 'data.seats': 'number' }));
      expect(await api.dataSource.query('SELECT 1 FROM job_uploads WHERE job_id = $1', [queued.body.jobId])).toHaveLength(0);
    });

    it('subscribes, unsubscribes and deletes in bulk through workflow bulk/<jobId>', async () => {
      const ids: string[] = [];
      for (const email of ['b1@example.com', 'b2@example.com', 'b3@example.com']) {
        ids.push((await client.post('/contacts', { email }, { key })).body.id);
      }
      const missing = '00000000-0000-4000-8000-000000000000';
      const queued = await client.post('/contacts/bulk-unsubscribe', { contactIds: [ids[0], ids[1], missing] }, { key });
      expect(queued.status).toBe(202);
      const job = await settle(client, key, `/contacts/bulk/${queued.body.jobId}`);
      expect(job).toEqual(expect.objectContaining({
        type: 'BULK_UNSUBSCRIBE', status: 'COMPLETED', total: 3, processed: 3, succeeded: 2, failed: 1,
        errors: [{ contactId: missing, message: 'Contact not found' }],
      }));
      const subscribed = await api.dataSource.query('SELECT email, subscribed FROM contacts WHERE project_id = $1 ORDER BY email', [projectId]);
      expect(subscribed.map((row: { subscribed: boolean }) => row.subscribed)).toEqual([false, false, true]);
      const flips = await api.dataSource.query(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name = 'contact.unsubscribed'`, [projectId]);
      expect(flips[0].n).toBe(2);

      const resubscribe = await client.post('/contacts/bulk-subscribe', { contactIds: [ids[0]] }, { key });
      expect((await settle(client, key, `/contacts/bulk/${resubscribe.body.jobId}`)).status).toBe('COMPLETED');
      const deletion = await client.post('/contacts/bulk-delete', { contactIds: ids }, { key });
      expect((await settle(client, key, `/contacts/bulk/${deletion.body.jobId}`)).succeeded).toBe(3);
      expect(await api.dataSource.query('SELECT 1 FROM contacts WHERE project_id = $1', [projectId])).toHaveLength(0);
    });
  });

  it('refuses uploads that are too large, not CSV or without an email column, queueing nothing', async () => {
    const before = (await api.dataSource.query('SELECT count(*)::int AS n FROM jobs WHERE project_id = $1', [projectId]))[0].n;
    const tooLarge = await upload(api, key, Buffer.alloc(5 * 1024 * 1024 + 1, 'a'));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const noEmail = await upload(api, key, 'name,plan\nAda,pro\n');
    expect(noEmail.status).toBe(422);
    const binary = await upload(api, key, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(binary.status).toBe(422);
    const noFile = await client.post('/contacts/import', {}, { key });
    expect(noFile.status).toBe(422);
    expect((await api.dataSource.query('SELECT count(*)::int AS n FROM jobs WHERE project_id = $1', [projectId]))[0].n).toBe(before);
  });

  it('validates bulk requests and hides other projects\' jobs', async () => {
    const tooMany = Array.from({ length: 1001 }, () => '00000000-0000-4000-8000-000000000000');
    expect((await client.post('/contacts/bulk-delete', { contactIds: tooMany }, { key })).status).toBe(422);
    expect((await client.post('/contacts/bulk-delete', { contactIds: ['nope'] }, { key })).status).toBe(422);
    const queued = await client.post('/contacts/bulk-delete', { contactIds: ['00000000-0000-4000-8000-000000000000'] }, { key });
    const other = (await signupWithProject(api)).project.secretKey;
    expect((await client.get(`/contacts/bulk/${queued.body.jobId}`, { key: other })).status).toBe(404);
    expect((await client.get(`/contacts/import/${queued.body.jobId}`, { key })).status).toBe(404);
    expect((await client.get('/contacts/bulk/not-a-uuid', { key })).status).toBe(404);
  });

  it('finishes an import after its worker is killed mid-way, without losing or duplicating rows', async () => {
    const rows = 30_000;
    const lines = ['email,n'];
    for (let i = 0; i < rows; i += 1) lines.push(`kill${i}@example.com,${i}`);
    const queued = await upload(api, key, lines.join('\n'));
    expect(queued.status).toBe(202);

    const killed = spawnWorkerProcess();
    const jobPath = `/contacts/import/${queued.body.jobId}`;
    const deadline = Date.now() + 60_000;
    let processed = 0;
    while (processed === 0) {
      if (Date.now() > deadline) throw new Error('the worker process never made progress');
      await new Promise((resolve) => setTimeout(resolve, 100));
      processed = (await client.get(jobPath, { key })).body.processed;
    }
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('exit', resolve));
    const atKill = (await client.get(jobPath, { key })).body;
    expect(atKill.status).toBe('RUNNING');
    expect(atKill.processed).toBeLessThan(rows);

    worker = await startTestWorker(api.dataSource, env);
    const job = await settle(client, key, jobPath, 120_000);
    expect(job).toEqual(expect.objectContaining({ status: 'COMPLETED', total: rows, processed: rows, succeeded: rows, failed: 0 }));
    const [{ n, distinct }] = await api.dataSource.query(
      `SELECT count(*)::int AS n, count(DISTINCT (data->>'n'))::int AS distinct FROM contacts WHERE project_id = $1`,
      [projectId],
    );
    expect(n).toBe(rows);
    expect(distinct).toBe(rows);
  }, 180_000);
});

/** A worker in its own process, so that it can be killed with SIGKILL. */
function spawnWorkerProcess(): ChildProcess {
  return spawn(process.execPath, [...WORKER_PROCESS_ARGS, path.join(__dirname, '../support/worker-process.ts')], {
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
}
