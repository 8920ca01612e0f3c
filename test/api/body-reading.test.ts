import { request } from 'node:http';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

const MB = 1024 * 1024;

interface EarlyAnswer {
  status: number;
  body: any;
}

/**
 * POSTs a JSON body of `declaredBytes` but sends only its first 64 KiB, then waits (up to 5 s)
 * for an answer. Only a server that answers without reading the body can answer at all.
 */
function postPartialBody(url: string, path: string, declaredBytes: number, headers: Record<string, string>): Promise<EarlyAnswer | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(declaredBytes), ...headers },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve('no answer');
    }, 5000);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode!, body: JSON.parse(text) });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.write(Buffer.alloc(64 * 1024, ' '));
  });
}

describe('request bodies are read only after authentication', () => {
  let api: TestApi;
  let secretKey: string;

  beforeAll(async () => {
    api = await startApi();
    secretKey = (await signupWithProject(api)).project.secretKey;
  });
  afterAll(() => api.close());

  it('answers 401 to a 40 MB /v1/send body with a bad key without waiting for the body', async () => {
    const answer = await postPartialBody(api.url, '/v1/send', 40 * MB, { authorization: 'Bearer sk_not-a-key' });

    expect(answer).toMatchObject({ status: 401, body: { success: false, error: { code: 'INVALID_API_KEY' } } });
  });

  it('answers 401 without reading the body on every other kind of route: keyed, public key and session', async () => {
    for (const [path, headers] of [
      ['/contacts', {}],
      ['/v1/track', { authorization: 'Bearer pk_not-a-key' }],
      ['/campaigns', { authorization: 'Bearer sk_not-a-key' }],
      ['/users/@me/projects', {}],
      ['/projects/00000000-0000-4000-8000-000000000000/members', { cookie: 'herald_session=forged' }],
    ] as const) {
      const answer = await postPartialBody(api.url, path, 900 * 1024, headers);
      expect([path, answer]).toEqual([path, expect.objectContaining({ status: 401 })]);
    }
  });

  it('still answers 413 PAYLOAD_TOO_LARGE for a good key: over 40 MB on /v1/send, over 1 MB elsewhere', async () => {
    const client = new Client(api.url);
    const send = await client.call('POST', '/v1/send', { rawBody: ' '.repeat(40 * MB + 1), key: secretKey });
    const contacts = await client.call('POST', '/contacts', { rawBody: ' '.repeat(MB + 1), key: secretKey });

    expect(send).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds the limit of 41943040 bytes' } } });
    expect(contacts).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds the limit of 1048576 bytes' } } });
  });

  it('reads the body once the key is accepted: malformed JSON is a 400, a good body works', async () => {
    const client = new Client(api.url);
    const malformed = await client.call('POST', '/contacts', { rawBody: '{"email":', key: secretKey });
    const created = await client.post('/contacts', { email: 'reader@example.com' }, { key: secretKey });
    const signup = await client.post('/auth/signup', { email: 'not an address', password: 'correct horse battery' });

    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('BAD_REQUEST');
    expect(created.status).toBe(201);
    expect(signup.status).toBe(422);
  });
});
