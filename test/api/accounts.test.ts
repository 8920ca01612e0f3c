import { tokenFromOutbox } from '../support/account-mail';
import { Client, startApi, uniqueEmail, type TestApi } from '../support/api';

const PASSWORD = 'correct horse battery';

describe('accounts', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('signs up with an HttpOnly session cookie and shows the user', async () => {
    const client = new Client(api.url);
    const email = uniqueEmail();
    const response = await fetch(`${api.url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(response.status).toBe(201);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^herald_session=[^;]+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(await response.json()).toEqual({ id: expect.any(String), email, emailVerified: false, createdAt: expect.any(String) });

    await client.post('/auth/login', { email, password: PASSWORD });
    const me = await client.get('/users/@me');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
  });

  it('refuses a second account for the same email, whatever its case', async () => {
    const email = uniqueEmail();
    expect((await new Client(api.url).post('/auth/signup', { email, password: PASSWORD })).status).toBe(201);
    const again = await new Client(api.url).post('/auth/signup', { email: email.toUpperCase(), password: PASSWORD });
    expect(again.status).toBe(409);
    const [{ count }] = await api.dataSource.query('SELECT count(*)::int AS count FROM users WHERE lower(email) = lower($1)', [email]);
    expect(count).toBe(1);
  });

  it('gives the same 401 for an unknown email and a wrong password', async () => {
    const email = uniqueEmail();
    await new Client(api.url).post('/auth/signup', { email, password: PASSWORD });
    const wrong = await new Client(api.url).post('/auth/login', { email, password: 'wrong password' });
    const unknown = await new Client(api.url).post('/auth/login', { email: uniqueEmail(), password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('revokes the session on logout', async () => {
    const client = new Client(api.url);
    const email = uniqueEmail();
    await client.post('/auth/signup', { email, password: PASSWORD });
    const stolen = new Client(api.url);
    const login = await fetch(`${api.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const logout = await fetch(`${api.url}/auth/logout`, { headers: { cookie } });
    expect(logout.status).toBe(200);
    expect(logout.headers.get('set-cookie')).toMatch(/herald_session=;/);
    const after = await stolen.get('/users/@me', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect((await client.get('/users/@me')).status).toBe(200);
  });

  it('requires a session for /users/@me', async () => {
    const answer = await new Client(api.url).get('/users/@me');
    expect(answer.status).toBe(401);
    expect(answer.body.success).toBe(false);
  });

  it('verifies the email with the token sent through the mailer, once', async () => {
    const client = new Client(api.url);
    const email = uniqueEmail();
    await client.post('/auth/signup', { email, password: PASSWORD });
    const token = await tokenFromOutbox(api, email, '/verify-email');
    expect((await client.post('/auth/verify-email', { token })).status).toBe(200);
    expect((await client.get('/users/@me')).body.emailVerified).toBe(true);
    const reused = await client.post('/auth/verify-email', { token });
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe('INVALID_TOKEN');
  });

  it('answers verification and reset requests with 200 for unknown emails and sends nothing', async () => {
    const email = uniqueEmail('nobody');
    const client = new Client(api.url);
    expect((await client.post('/auth/request-verification', { email })).status).toBe(200);
    expect((await client.post('/auth/request-password-reset', { email })).status).toBe(200);
    const [{ count }] = await api.dataSource.query('SELECT count(*)::int AS count FROM outbox_messages WHERE $1 = ANY("to")', [email]);
    expect(count).toBe(0);
  });

  it('resets the password with an emailed token and signs out every session', async () => {
    const client = new Client(api.url);
    const email = uniqueEmail();
    await client.post('/auth/signup', { email, password: PASSWORD });
    await new Client(api.url).post('/auth/request-password-reset', { email });
    const token = await tokenFromOutbox(api, email, '/reset-password');
    const reset = await new Client(api.url).post('/auth/reset-password', { token, password: 'a brand new secret' });
    expect(reset.status).toBe(200);
    expect((await client.get('/users/@me')).status).toBe(401);
    expect((await new Client(api.url).post('/auth/login', { email, password: PASSWORD })).status).toBe(401);
    expect((await new Client(api.url).post('/auth/login', { email, password: 'a brand new secret' })).status).toBe(200);
    expect((await new Client(api.url).post('/auth/reset-password', { token, password: 'yet another one' })).status).toBe(400);
  });

  it('lists no OAuth providers when none is configured', async () => {
    const answer = await new Client(api.url).get('/auth/oauth-config');
    expect(answer.body).toEqual({ providers: [] });
  });

  describe('with DISABLE_SIGNUPS=true', () => {
    let closed: TestApi;
    beforeAll(async () => {
      closed = await startApi({ env: { DISABLE_SIGNUPS: 'true' } });
    });
    afterAll(() => closed.close());

    it('refuses sign-ups with 403 and creates nothing', async () => {
      const email = uniqueEmail();
      const answer = await new Client(closed.url).post('/auth/signup', { email, password: PASSWORD });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('SIGNUPS_DISABLED');
      const rows = await closed.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email]);
      expect(rows).toHaveLength(0);
      expect((await new Client(closed.url).get('/config')).body.features.signups).toBe(false);
    });
  });
});
