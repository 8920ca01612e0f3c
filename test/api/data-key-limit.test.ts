import { ContactsService } from '../../src/contacts/contacts-service';
import { MAX_DATA_KEYS } from '../../src/contacts/data-key-limit';
import { PermanentStepError } from '../../src/automations/errors';
import { updateContact } from '../../src/automations/contact-steps';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { connectTestTemporal, startTestWorker, type TestTemporal, type TestWorker } from '../support/worker';

/** A task queue of this file's own, so workers of other test files never take its workflows. */
const env = { TEMPORAL_TASK_QUEUE: 'data-key-limit-test' };

describe(`at most ${MAX_DATA_KEYS} distinct data keys per project`, () => {
  let temporal: TestTemporal;
  let api: TestApi;
  let worker: TestWorker;
  let client: Client;
  let key: string;
  let projectId: string;

  const keyCount = async () =>
    (await api.dataSource.query('SELECT count(*)::int AS count FROM contact_fields WHERE project_id = $1', [projectId]))[0].count as number;
  const expectLimit = (answer: { status: number; body: any }, adding: number) => {
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining(`at most 1,000 distinct data keys; it has 999 and this would add ${adding} more`),
      errors: [expect.objectContaining({ field: 'data', code: 'too_many_keys' })],
      details: { limit: MAX_DATA_KEYS, existing: MAX_DATA_KEYS - 1, adding },
    });
  };

  beforeAll(async () => {
    temporal = await connectTestTemporal();
    api = await startApi({ env, temporal: temporal.client });
    worker = await startTestWorker(api.dataSource, env);
    client = new Client(api.url);
    const signedUp = await signupWithProject(api);
    key = signedUp.project.secretKey;
    projectId = signedUp.project.id;
    await api.dataSource.query(
      `INSERT INTO contact_fields (project_id, key, type) SELECT $1, 'k' || n, 'string' FROM generate_series(1, $2) AS n`,
      [projectId, MAX_DATA_KEYS - 1],
    );
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
    await temporal.close();
  });

  it('refuses contacts, /v1/track and PATCH writes that would pass the limit with 422, writing nothing', async () => {
    const created = await client.post('/contacts', { email: 'ada@example.com', data: { plan: 'pro', tier: 2 } }, { key });
    const tracked = await client.post('/v1/track', { email: 'bob@example.com', event: 'signed_up', data: { plan: 'pro', seats: 3 } }, { key });
    const existing = await client.post('/contacts', { email: 'cy@example.com', data: { k1: 'a', k2: 'b' } }, { key });
    const patched = await client.patch(`/contacts/${existing.body.id}`, { data: { plan: 'pro', tier: 2 } }, { key });

    expectLimit(created, 2);
    expectLimit(tracked, 2);
    expectLimit(patched, 2);
    expect(existing.status).toBe(201);
    const emails = await api.dataSource.query('SELECT email FROM contacts WHERE project_id = $1', [projectId]);
    expect(emails).toEqual([{ email: 'cy@example.com' }]);
    expect(await keyCount()).toBe(MAX_DATA_KEYS - 1);
  });

  it('takes keys up to the limit and existing keys past it; a deleted key makes room', async () => {
    const last = await client.post('/contacts', { email: 'dee@example.com', data: { plan: 'pro' } }, { key });
    const more = await client.post('/v1/track', { email: 'dee@example.com', event: 'upgraded', data: { tier: 2 } }, { key });
    const known = await client.post('/v1/track', { email: 'dee@example.com', event: 'upgraded', data: { plan: 'team', k7: 'x' } }, { key });
    expect(last.status).toBe(201);
    expect(more.status).toBe(422);
    expect(more.body.error.message).toContain('it has 1,000 and this would add 1 more ("tier")');
    expect(known.status).toBe(200);

    expect((await client.delete('/contacts/fields/data.k7', { key })).status).toBe(200);
    expect((await client.post('/v1/track', { email: 'dee@example.com', event: 'upgraded', data: { tier: 2 } }, { key })).status).toBe(200);
    expect(await keyCount()).toBe(MAX_DATA_KEYS);
    const fields = await client.get('/contacts/fields', { key });
    expect(fields.body.fields.filter((field: { isCustom: boolean }) => field.isCustom)).toHaveLength(MAX_DATA_KEYS);
  });

  it('fails a CSV import whose columns would pass the limit, saying why', async () => {
    const form = new FormData();
    form.append('file', new Blob(['email,brand new column\neve@example.com,x\n'], { type: 'text/csv' }), 'contacts.csv');
    const queued = await fetch(`${api.url}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const { jobId } = (await queued.json()) as { jobId: string };
    await expect(temporal.client.workflow.getHandle(`import/${jobId}`).result()).rejects.toThrow('Workflow execution failed');

    const job = (await client.get(`/contacts/import/${jobId}`, { key })).body;
    expect(job).toMatchObject({ status: 'FAILED', succeeded: 0 });
    expect(job.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('The job failed: A project may have at most 1,000 distinct data keys') })]);
    expect(await api.dataSource.query(`SELECT 1 FROM contacts WHERE project_id = $1 AND email = 'eve@example.com'`, [projectId])).toEqual([]);
  });

  it('fails an UPDATE_CONTACT step that would pass the limit for good', async () => {
    const contact = (await client.post('/contacts', { email: 'flo@example.com' }, { key })).body;
    const contacts = new ContactsService(api.dataSource, api.dispatcher);

    const update = updateContact(contacts, projectId, contact.id, { data: { yetAnother: true } });

    await expect(update).rejects.toThrow(PermanentStepError);
    await expect(update).rejects.toThrow(/UPDATE_CONTACT: A project may have at most 1,000 distinct data keys/);
  });
});
