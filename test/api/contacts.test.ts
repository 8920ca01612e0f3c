import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

describe('contacts', () => {
  let api: TestApi;
  let client: Client;
  let key: string;

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
  });
  afterAll(() => api.close());
  beforeEach(async () => {
    key = (await signupWithProject(api)).project.secretKey;
  });

  const post = (body: unknown) => client.post('/contacts', body, { key });
  const events = (contactId: string) =>
    api.dataSource.query('SELECT name, source FROM events WHERE contact_id = $1 ORDER BY created_at', [contactId]);

  it('creates with 201 (subscribed by default), then updates with 200, with _meta', async () => {
    const created = await post({ email: 'Ada@Example.com', data: { plan: 'pro' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      email: 'ada@example.com',
      subscribed: true,
      snoozedUntil: null,
      data: { plan: 'pro' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      _meta: { isNew: true, isUpdate: false },
    });
    const updated = await post({ email: 'ADA@example.com', data: { seats: 3 } });
    expect(updated.status).toBe(200);
    expect(updated.body.id).toBe(created.body.id);
    expect(updated.body.data).toEqual({ plan: 'pro', seats: 3 });
    expect(updated.body._meta).toEqual({ isNew: false, isUpdate: true });
  });

  it('applies the data rules: reserved keys dropped, null deletes, empty string ignored, non-persistent not stored', async () => {
    await post({ email: 'rules@example.com', data: { plan: 'pro', keep: 'me', gone: 1 } });
    const answer = await post({
      email: 'rules@example.com',
      data: {
        id: 'x', herald_id: 'x', herald_email: 'x', email: 'x', unsubscribeUrl: 'x', subscribeUrl: 'x', manageUrl: 'x',
        gone: null,
        keep: '',
        once: { value: 'temporary', persistent: false },
        kept: { value: 'stored', persistent: true },
        locale: 'fr',
        'first name': 'Ada',
        profile: { tier: 'gold' },
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ plan: 'pro', keep: 'me', kept: 'stored', locale: 'fr', 'first name': 'Ada', profile: { tier: 'gold' } });
  });

  it('answers a missing or invalid email with the bare { error } body and stores nothing', async () => {
    for (const body of [{}, { email: 'not-an-email' }, { email: 'a@b.co', subscribed: 'yes' }]) {
      const answer = await post(body);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.any(String) });
    }
    const [{ n }] = await api.dataSource.query(`SELECT count(*)::int AS n FROM contacts WHERE email IN ('not-an-email', 'a@b.co')`);
    expect(n).toBe(0);
  });

  it('keeps the subscription of an existing contact unless told, and emits an event on each flip', async () => {
    const created = await post({ email: 'flip@example.com', subscribed: false });
    expect(created.body.subscribed).toBe(false);
    expect((await post({ email: 'flip@example.com' })).body.subscribed).toBe(false);
    const patched = await client.patch(`/contacts/${created.body.id}`, { subscribed: true }, { key });
    expect(patched.body.subscribed).toBe(true);
    await client.patch(`/contacts/${created.body.id}`, { subscribed: true }, { key });
    await client.patch(`/contacts/${created.body.id}`, { subscribed: false }, { key });
    expect(await events(created.body.id)).toEqual([
      { name: 'contact.subscribed', source: 'SYSTEM' },
      { name: 'contact.unsubscribed', source: 'SYSTEM' },
    ]);
  });

  it('gets, patches and deletes a contact; another project sees 404', async () => {
    const created = await post({ email: 'crud@example.com' });
    const id = created.body.id;
    expect((await client.get(`/contacts/${id}`, { key })).body.email).toBe('crud@example.com');
    const other = (await signupWithProject(api)).project.secretKey;
    expect((await client.get(`/contacts/${id}`, { key: other })).status).toBe(404);
    expect((await client.patch(`/contacts/${id}`, { data: { a: 1 } }, { key: other })).status).toBe(404);
    expect((await client.delete(`/contacts/${id}`, { key: other })).status).toBe(404);

    const patched = await client.patch(`/contacts/${id}`, { email: 'New@Example.com', data: { a: 1 } }, { key });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(expect.objectContaining({ email: 'new@example.com', data: { a: 1 } }));

    const deleted = await client.delete(`/contacts/${id}`, { key });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await client.get(`/contacts/${id}`, { key })).status).toBe(404);
    expect((await client.get('/contacts/not-a-uuid', { key })).status).toBe(404);
  });

  it('refuses to move a contact to an email another contact has (409), changing nothing', async () => {
    await post({ email: 'taken@example.com' });
    const mover = await post({ email: 'mover@example.com' });
    const answer = await client.patch(`/contacts/${mover.body.id}`, { email: 'TAKEN@example.com', data: { x: 1 } }, { key });
    expect(answer.status).toBe(409);
    const after = await client.get(`/contacts/${mover.body.id}`, { key });
    expect(after.body).toEqual(expect.objectContaining({ email: 'mover@example.com', data: {} }));
  });

  it('pages with a cursor; total only on the first page', async () => {
    for (let i = 0; i < 5; i += 1) await post({ email: `page${i}@example.com`, subscribed: i % 2 === 0 });
    const first = await client.get('/contacts?limit=2&sort=email&dir=asc', { key });
    expect(first.body).toEqual({ data: expect.any(Array), cursor: expect.any(String), hasMore: true, total: 5 });
    expect(first.body.data.map((c: { email: string }) => c.email)).toEqual(['page0@example.com', 'page1@example.com']);
    const second = await client.get(`/contacts?limit=2&sort=email&dir=asc&cursor=${first.body.cursor}`, { key });
    expect(second.body.total).toBe(0);
    expect(second.body.data.map((c: { email: string }) => c.email)).toEqual(['page2@example.com', 'page3@example.com']);
    const third = await client.get(`/contacts?limit=2&sort=email&dir=asc&cursor=${second.body.cursor}`, { key });
    expect(third.body).toEqual(expect.objectContaining({ hasMore: false, cursor: null }));
    expect(third.body.data.map((c: { email: string }) => c.email)).toEqual(['page4@example.com']);

    const newestFirst = await client.get('/contacts?limit=100&sort=bogus&dir=sideways', { key });
    expect(newestFirst.body.data.map((c: { email: string }) => c.email)).toEqual([4, 3, 2, 1, 0].map((i) => `page${i}@example.com`));

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await client.get(`/contacts?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
      walked.push(...page.body.data.map((c: { email: string }) => c.email));
      cursor = page.body.cursor;
    } while (cursor);
    expect(walked).toEqual(newestFirst.body.data.map((c: { email: string }) => c.email));

    const subscribed = await client.get('/contacts?subscribed=false', { key });
    expect(subscribed.body.total).toBe(2);
    const search = await client.get('/contacts?search=GE3', { key });
    expect(search.body.data.map((c: { email: string }) => c.email)).toEqual(['page3@example.com']);
    expect((await client.get('/contacts?search=%25', { key })).body.total).toBe(0);
    expect((await client.get('/contacts?limit=1000', { key })).body.data).toHaveLength(5);
    expect((await client.get('/contacts?cursor=garbage!', { key })).status).toBe(400);
  });

  it('looks up emails in request order, at most 500', async () => {
    const known = await post({ email: 'known@example.com' });
    const answer = await client.post('/contacts/lookup', { emails: ['nobody@example.com', 'KNOWN@example.com'] }, { key });
    expect(answer.body).toEqual({
      data: [
        { email: 'nobody@example.com', exists: false, contactId: null },
        { email: 'KNOWN@example.com', exists: true, contactId: known.body.id },
      ],
    });
    const tooMany = Array.from({ length: 501 }, (_, i) => `x${i}@example.com`);
    expect((await client.post('/contacts/lookup', { emails: tooMany }, { key })).status).toBe(422);
    expect((await client.post('/contacts/lookup', { emails: [] }, { key })).status).toBe(422);
  });

  it('infers field types once per project and reports coverage, values, and deletes fields', async () => {
    await post({ email: 'f1@example.com', data: { age: 42, vip: true, since: '2024-01-02', seen: '2024-01-02T03:04:05.678Z', plan: 'pro', profile: { tier: 'gold' }, 'first name': 'Ada' } });
    await post({ email: 'f2@example.com', data: { age: 'forty', plan: 'pro', odd: '01/02/2024' } });
    await post({ email: 'f3@example.com', data: { plan: 'free' } });
    const fields = await client.get('/contacts/fields', { key });
    const byName = Object.fromEntries(fields.body.fields.map((f: { field: string }) => [f.field, f]));
    expect(byName.email).toEqual({ field: 'email', type: 'string', isCustom: false, coverage: 1 });
    expect(byName['data.age']).toEqual({ field: 'data.age', type: 'number', isCustom: true, coverage: 0.6667 });
    expect(byName['data.vip'].type).toBe('boolean');
    expect(byName['data.since'].type).toBe('date');
    expect(byName['data.seen'].type).toBe('date');
    expect(byName['data.odd'].type).toBe('string');
    expect(byName['data.plan']).toEqual(expect.objectContaining({ type: 'string', coverage: 1 }));
    expect(byName['data.profile'].type).toBe('object');
    expect(byName['data.first name'].type).toBe('string');

    const values = await client.get('/contacts/fields/data.plan/values', { key });
    expect(values.body).toEqual({ field: 'data.plan', values: [{ value: 'pro', count: 2 }, { value: 'free', count: 1 }] });
    const nested = await client.get('/contacts/fields/data.profile.tier/values', { key });
    expect(nested.body.values).toEqual([{ value: 'gold', count: 1 }]);

    const removed = await client.delete('/contacts/fields/data.plan', { key });
    expect(removed.body).toEqual({ field: 'data.plan', contactsUpdated: 3 });
    const after = await client.get('/contacts/fields', { key });
    expect(after.body.fields.map((f: { field: string }) => f.field)).not.toContain('data.plan');
    const usage = await client.get('/contacts/fields/data.age/usage', { key });
    expect(usage.body).toEqual({ field: 'data.age', segments: [], campaigns: [], workflows: [] });
  });

  it('enforces one contact per email per project in the database, under concurrency', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post({ email: 'race@example.com', data: { [`k${i}`]: i } })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const rows = await api.dataSource.query(`SELECT data FROM contacts WHERE email = 'race@example.com' AND id = $1`, [answers[0].body.id]);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0].data).sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });
});
