import { Client, startApi, type TestApi } from '../support/api';

describe('API conventions', () => {
  let api: TestApi;
  let client: Client;

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
  });
  afterAll(() => api.close());

  it('gives every response an X-Request-Id that matches the error envelope', async () => {
    const answer = await client.get('/no/such/route');
    expect(answer.status).toBe(404);
    const requestId = answer.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    expect(answer.body).toEqual({
      success: false,
      error: expect.objectContaining({ code: 'NOT_FOUND', statusCode: 404, requestId }),
      timestamp: expect.any(String),
    });
    const ok = await client.get('/config');
    expect(ok.headers.get('x-request-id')).toBeTruthy();
  });

  it('keeps a well-formed incoming X-Request-Id', async () => {
    const answer = await client.get('/config', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(answer.headers.get('x-request-id')).toBe('trace-abc-123');
  });

  it('answers malformed JSON with 400 BAD_REQUEST', async () => {
    const answer = await client.call('POST', '/auth/login', { rawBody: '{"email": ' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('BAD_REQUEST');
  });

  it('answers a body over 1 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await client.post('/auth/login', { email: 'a@b.test', password: 'x'.repeat(1_100_000) });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serves /config without authentication', async () => {
    const answer = await client.get('/config');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      version: expect.any(String),
      features: { signups: true, billing: false, oauth: { github: false, google: false }, transport: 'outbox' },
    });
  });

  it('reports health of the database', async () => {
    const answer = await client.get('/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok', database: 'up', temporal: 'down' });
  });

  it('answers validation failures with 422 and field errors', async () => {
    const answer = await client.post('/auth/signup', { email: 'not-an-email', password: 'short' });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    const fields = answer.body.error.errors.map((e: { field: string; code: string }) => [e.field, e.code]);
    expect(fields).toEqual(expect.arrayContaining([['email', 'invalid_string'], ['password', 'too_small']]));
  });
});
