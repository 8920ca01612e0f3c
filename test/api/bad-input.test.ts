import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

/** Requests that once answered 500: each now gets a 4xx in the SPEC envelope. */
describe('bad input answers 4xx in the envelope, never 500', () => {
  let api: TestApi;
  let client: Client;
  let key: string;
  let projectId: string;

  const get = (path: string) => client.get(path, { key });
  const expectError = (answer: { status: number; body: any }, status: number, code: string) => {
    expect({ status: answer.status, success: answer.body?.success, code: answer.body?.error?.code }).toEqual({ status, success: false, code });
  };

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
    const signedUp = await signupWithProject(api);
    key = signedUp.project.secretKey;
    projectId = signedUp.project.id;
    for (const name of ['ada', 'bob', 'cy']) await client.post('/contacts', { email: `${name}@example.com` }, { key });
  });
  afterAll(() => api.close());

  describe('cursors', () => {
    it('refuses a tampered cursor, a made-up one, and one of another sort with 400', async () => {
      const first = await get('/contacts?limit=1');
      const [payload, signature] = (first.body.cursor as string).split('.');
      const position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const tampered = `${Buffer.from(JSON.stringify({ ...position, v: 'not a time' })).toString('base64url')}.${signature}`;
      const madeUp = Buffer.from(JSON.stringify({ v: 'not a time', id: position.id })).toString('base64url');
      const byEmail = (await get('/contacts?limit=1&sort=email')).body.cursor;

      for (const path of [`/contacts?cursor=${tampered}`, `/contacts?cursor=${madeUp}`, `/contacts?cursor=${byEmail}`, `/events?cursor=${first.body.cursor}`]) {
        const answer = await get(path);
        expectError(answer, 400, 'BAD_REQUEST');
        expect(answer.body.error.message).toMatch(/cursor is not valid/);
      }
      expect((await get(`/contacts?limit=1&cursor=${first.body.cursor}`)).body.data).toHaveLength(1);
    });
  });

  describe('query parameters', () => {
    it('refuses array-valued and bracketed scalar parameters with 400 naming the parameter', async () => {
      for (const path of ['/contacts?search[]=ada', '/contacts?search=a&search=b', '/campaigns?status[x]=DRAFT', '/templates?page[]=1', '/events?name[]=x']) {
        const answer = await get(path);
        expectError(answer, 400, 'BAD_REQUEST');
        expect(answer.body.error.message).toMatch(/must be given once, as a plain value/);
      }
    });

    it('refuses absurd or non-numeric page, pageSize and limit with 400, and clamps large sizes', async () => {
      for (const path of [
        '/campaigns?page=1e300',
        '/campaigns?page=99999999999999999999',
        '/campaigns?page=1000001',
        '/campaigns?page=0',
        '/templates?pageSize=1e300',
        '/templates?page=two',
        '/contacts?limit=1e300',
        '/contacts?limit=99999999999999999999',
        '/suppressions?limit=lots',
        '/activity?limit=1.5',
      ]) {
        expectError(await get(path), 400, 'BAD_REQUEST');
      }
      expect((await get('/campaigns?page=1000000&pageSize=1000')).body).toMatchObject({ data: [], page: 1000000, pageSize: 100 });
      expect((await get('/contacts?limit=1000')).body.data).toHaveLength(3);
    });

    it('refuses a NUL character in a query parameter or the path with 400', async () => {
      expectError(await get('/contacts?search=a%00b'), 400, 'BAD_REQUEST');
      expectError(await get('/events/signed%00up/usage'), 400, 'BAD_REQUEST');
    });
  });

  describe('bodies', () => {
    it('refuses null for fields that are optional but not nullable with 422', async () => {
      const contact = (await get('/contacts?limit=1')).body.data[0];
      const patch = await client.patch(`/contacts/${contact.id}`, { email: null }, { key });
      const suppression = await client.post('/suppressions', { domain: null }, { key });
      const template = await client.post('/templates', { name: null, from: 'a@example.com', subject: 's', body: 'b' }, { key });

      expectError(patch, 422, 'VALIDATION_ERROR');
      expect(patch.body.error.errors).toEqual([expect.objectContaining({ field: 'email', code: 'invalid_string' })]);
      expectError(suppression, 422, 'VALIDATION_ERROR');
      expect(suppression.body.error.errors).toEqual([expect.objectContaining({ field: 'domain', code: 'invalid_type' })]);
      expect(template.status).toBe(400);
      expect((await get(`/contacts/${contact.id}`)).body.email).toBe(contact.email);
    });

    it('refuses a NUL character in an event name, a data key, a workflow trigger or any string, writing nothing', async () => {
      const track = await client.post('/v1/track', { email: 'nul@example.com', event: 'signed\u0000up' }, { key });
      const dataKey = await client.post('/v1/track', { email: 'nul@example.com', event: 'signed_up', data: { 'pl\u0000an': 'pro' } }, { key });
      const workflow = await client.post('/workflows', { name: 'On signup', triggerConfig: { eventName: 'signed\u0000up' } }, { key });
      const contact = await client.post('/contacts', { email: 'nul@example.com', data: { nested: { list: ['ok', 'no\u0000pe'] } } }, { key });

      expectError(track, 422, 'VALIDATION_ERROR');
      expect(track.body.error.errors).toEqual([{ field: 'event', code: 'invalid_string', message: 'event must not contain a NUL character (\\u0000)' }]);
      expectError(dataKey, 422, 'VALIDATION_ERROR');
      expect(dataKey.body.error.errors[0].field).toBe('data.pl\u0000an');
      expectError(workflow, 422, 'VALIDATION_ERROR');
      expect(workflow.body.error.errors[0].field).toBe('triggerConfig.eventName');
      expectError(contact, 422, 'VALIDATION_ERROR');
      expect(contact.body.error.errors[0].field).toBe('data.nested.list[1]');
      const [{ count }] = await api.dataSource.query(`SELECT count(*)::int AS count FROM contacts WHERE project_id = $1 AND email = 'nul@example.com'`, [projectId]);
      expect(count).toBe(0);
    });

    it('refuses a body nested deeper than 64 levels with 422', async () => {
      let data: unknown = 'deep';
      for (let i = 0; i < 200; i += 1) data = { d: data };
      const answer = await client.post('/contacts', { email: 'deep@example.com', data }, { key });

      expectError(answer, 422, 'VALIDATION_ERROR');
      expect(answer.body.error.errors[0]).toMatchObject({ code: 'too_big', message: 'The body is nested more than 64 levels deep' });
    });
  });
});
