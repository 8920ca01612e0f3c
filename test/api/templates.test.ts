import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

describe('templates API', () => {
  let api: TestApi;
  let client: Client;
  let key: string;
  let projectId: string;

  /** A new project whose domain `<label>.test` is verified, so tests never share a domain. */
  async function projectWithDomain(): Promise<{ key: string; projectId: string; domain: string }> {
    const { project } = await signupWithProject(api);
    const domain = `d${project.id.replace(/-/g, '').slice(0, 12)}.test`;
    await api.dataSource.query(
      `INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`,
      [project.id, domain],
    );
    return { key: project.secretKey, projectId: project.id, domain };
  }

  let domain: string;
  const template = (overrides: Record<string, unknown> = {}) => ({
    name: 'Welcome',
    subject: "Welcome, {{ first name ?? 'friend' }}",
    body: '<p>Hi {{ name | capitalize }}</p>',
    from: `hello@${domain}`,
    ...overrides,
  });
  const create = (body: unknown, withKey = key) => client.post('/templates', body, { key: withKey });
  const count = async () =>
    Number((await api.dataSource.query('SELECT count(*) AS n FROM templates WHERE project_id = $1', [projectId]))[0].n);

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
  });
  afterAll(() => api.close());
  beforeEach(async () => {
    ({ key, projectId, domain } = await projectWithDomain());
  });

  it('creates a template (201) with defaults, then reads, updates and deletes it', async () => {
    const created = await create(template());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Welcome',
      description: null,
      subject: "Welcome, {{ first name ?? 'friend' }}",
      body: '<p>Hi {{ name | capitalize }}</p>',
      from: `hello@${domain}`,
      fromName: null,
      replyTo: null,
      type: 'MARKETING',
      projectId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const path = `/templates/${created.body.id}`;
    expect((await client.get(path, { key })).body).toEqual(created.body);

    const patched = await client.patch(path, { name: 'Welcome v2', description: 'first mail', fromName: 'Ada', type: 'TRANSACTIONAL' }, { key });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Welcome v2', description: 'first mail', fromName: 'Ada', type: 'TRANSACTIONAL', subject: created.body.subject });
    expect(new Date(patched.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updatedAt).getTime());

    const cleared = await client.patch(path, { description: null, replyTo: `reply@${domain}` }, { key });
    expect(cleared.body).toMatchObject({ description: null, replyTo: `reply@${domain}`, name: 'Welcome v2' });

    expect(await client.delete(path, { key })).toMatchObject({ status: 200, body: { success: true } });
    expect((await client.get(path, { key })).status).toBe(404);
    expect((await client.delete(path, { key })).status).toBe(404);
  });

  it('answers a missing from or name with the bare { error } body and stores nothing', async () => {
    for (const body of [template({ from: undefined }), template({ from: '' }), template({ name: undefined }), template({ name: '  ' }), undefined]) {
      const answer = await create(body);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.stringMatching(/(from|name) is required/) });
    }
    const created = await create(template());
    const emptied = await client.patch(`/templates/${created.body.id}`, { from: '' }, { key });
    expect(emptied).toMatchObject({ status: 400, body: { error: 'from is required' } });
    expect(await count()).toBe(1);
  });

  it('answers other invalid fields with 422 VALIDATION_ERROR', async () => {
    const answer = await create(template({ from: 'not-an-email', replyTo: 'nope', type: 'NEWSLETTER', fromName: 'A\r\nBcc: x@y.z' }));
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['from', 'fromName', 'replyTo', 'type']);
    expect((await create(template({ subject: null }))).status).toBe(422);
    expect(await count()).toBe(0);
  });

  it('refuses a Liquid syntax error with 422 invalid_template on that field and stores nothing', async () => {
    const answer = await create(template({ subject: 'Hi {{ name', body: '{% if vip %}unclosed' }));
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error.errors).toEqual([
      { field: 'subject', code: 'invalid_template', message: expect.any(String) },
      { field: 'body', code: 'invalid_template', message: expect.any(String) },
    ]);
    const unknownFilter = await create(template({ body: '{{ name | shout }}' }));
    expect(unknownFilter.status).toBe(422);
    expect(unknownFilter.body.error.errors[0]).toMatchObject({ field: 'body', code: 'invalid_template', message: expect.stringContaining('shout') });
    expect(await count()).toBe(0);

    const created = await create(template());
    const patched = await client.patch(`/templates/${created.body.id}`, { body: '{% for x in items %}' }, { key });
    expect(patched.status).toBe(422);
    expect((await client.get(`/templates/${created.body.id}`, { key })).body.body).toBe(created.body.body);
  });

  it('refuses a from on an unverified domain with 403 and allows a subdomain of a verified one', async () => {
    const refused = await create(template({ from: 'hello@unverified.test' }));
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(refused.body.error.message).toContain('unverified.test');
    expect(await count()).toBe(0);

    const sub = await create(template({ from: `news@mail.${domain}` }));
    expect(sub.status).toBe(201);
    const moved = await client.patch(`/templates/${sub.body.id}`, { from: 'news@unverified.test' }, { key });
    expect(moved.status).toBe(403);
    expect((await client.get(`/templates/${sub.body.id}`, { key })).body.from).toBe(`news@mail.${domain}`);
    expect((await client.patch(`/templates/${sub.body.id}`, { from: `team@${domain}` }, { key })).status).toBe(200);
  });

  it('lists with paging, type filter, search and sort', async () => {
    const names = ['Charlie', 'alpha', 'Bravo', 'Delta 100%'];
    for (const [i, name] of names.entries()) {
      const answer = await create(
        template({
          name,
          type: i % 2 === 0 ? 'TRANSACTIONAL' : 'MARKETING',
          description: name === 'Bravo' ? 'Sent after a PURCHASE' : null,
          subject: name === 'Charlie' ? 'Your Receipt' : 'Hello',
        }),
      );
      expect(answer.status).toBe(201);
    }
    const list = async (query: string) => (await client.get(`/templates${query}`, { key })).body;
    const namesOf = (page: { data: { name: string }[] }) => page.data.map((row) => row.name);

    const first = await list('?pageSize=3');
    expect(first).toMatchObject({ total: 4, page: 1, pageSize: 3, totalPages: 2 });
    expect(namesOf(first)).toEqual(['Delta 100%', 'Bravo', 'alpha']);
    expect(namesOf(await list('?pageSize=3&page=2'))).toEqual(['Charlie']);
    expect(await list('')).toMatchObject({ page: 1, pageSize: 20, totalPages: 1 });
    expect((await list('?pageSize=1000')).pageSize).toBe(100);

    expect(namesOf(await list('?sort=name&dir=asc'))).toEqual(['alpha', 'Bravo', 'Charlie', 'Delta 100%']);
    expect(namesOf(await list('?sort=bogus&dir=asc'))).toEqual(['Charlie', 'alpha', 'Bravo', 'Delta 100%']);
    expect(namesOf(await list('?sort=updatedAt&dir=sideways'))).toEqual(['Delta 100%', 'Bravo', 'alpha', 'Charlie']);

    expect(namesOf(await list('?type=TRANSACTIONAL&sort=name&dir=asc'))).toEqual(['Bravo', 'Charlie']);
    expect((await list('?type=marketing')).total).toBe(2);
    expect((await list('?type=bogus')).total).toBe(4);

    expect(namesOf(await list('?search=ALPH'))).toEqual(['alpha']);
    expect(namesOf(await list('?search=purchase'))).toEqual(['Bravo']);
    expect(namesOf(await list('?search=receipt'))).toEqual(['Charlie']);
    expect(namesOf(await list('?search=100%25'))).toEqual(['Delta 100%']);
    expect((await list('?search=_')).total).toBe(0);
  });

  it('duplicates a template as "<name> (copy)" and answers 201 { id }', async () => {
    const original = await create(template({ description: 'note', fromName: 'Ada', replyTo: `r@${domain}`, type: 'HEADLESS' }));
    const copy = await client.post(`/templates/${original.body.id}/duplicate`, undefined, { key });
    expect(copy.status).toBe(201);
    expect(copy.body).toEqual({ id: expect.any(String) });
    expect(copy.body.id).not.toBe(original.body.id);
    const stored = await client.get(`/templates/${copy.body.id}`, { key });
    const { id, name, createdAt, updatedAt, ...fields } = original.body;
    expect(stored.body).toMatchObject({ ...fields, name: 'Welcome (copy)' });
  });

  it('reports usage (none yet)', async () => {
    const created = await create(template());
    expect((await client.get(`/templates/${created.body.id}/usage`, { key })).body).toEqual({ campaigns: [], workflows: [] });
  });

  it("never shows or changes another project's template; unknown or malformed ids are 404", async () => {
    const other = await projectWithDomain();
    const theirs = await create({ ...template(), from: `x@${other.domain}` }, other.key);
    expect(theirs.status).toBe(201);
    const path = `/templates/${theirs.body.id}`;
    expect((await client.get(path, { key })).status).toBe(404);
    expect((await client.patch(path, { name: 'mine' }, { key })).status).toBe(404);
    expect((await client.delete(path, { key })).status).toBe(404);
    expect((await client.post(`${path}/duplicate`, undefined, { key })).status).toBe(404);
    expect((await client.get(`${path}/usage`, { key })).status).toBe(404);
    expect((await client.get('/templates', { key })).body.total).toBe(0);
    expect((await client.get(path, { key: other.key })).body.name).toBe('Welcome');
    expect((await client.get('/templates/not-a-uuid', { key })).status).toBe(404);
    expect((await client.get('/templates/00000000-0000-4000-8000-000000000000', { key })).status).toBe(404);
  });

  it('needs the secret key', async () => {
    const { project } = await signupWithProject(api);
    const answer = await client.get('/templates', { key: project.publicKey });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('INVALID_API_KEY');
  });
});
