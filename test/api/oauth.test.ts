import { ConfigError, loadConfig } from '../../src/config';
import { Client, markEmailVerified, signupWithProject, startApi, uniqueEmail, type TestApi } from '../support/api';
import { OAuthServer, type ProviderAccount, type ProviderName } from '../support/oauth-server';

const PUBLIC_URL = 'http://herald.test';

let accounts = 0;

/** A person at the provider with a fresh numeric id (GitHub ids are numbers). */
function providerAccount(email = uniqueEmail('oauth'), emailVerified = true): ProviderAccount {
  accounts += 1;
  return { id: String(Date.now() * 100 + accounts), email, emailVerified };
}

/** The `name=value` pair of a cookie the response sets, if it sets it to a value. */
function setCookie(response: Response, name: string): string | undefined {
  const pair = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`))?.split(';')[0];
  return pair && !pair.endsWith('=') ? pair : undefined;
}

/** `GET /auth/oauth/:provider` as a browser: the provider page it redirects to and the state cookie. */
async function start(api: TestApi, provider: string, query = '') {
  const response = await fetch(`${api.url}/auth/oauth/${provider}${query}`, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { response, location: location ? new URL(location) : undefined, stateCookie: setCookie(response, 'herald_oauth_state') };
}

/** The provider's authorize page: the callback URL (on PUBLIC_URL) it sends the browser back to. */
async function authorize(location: URL): Promise<URL> {
  const response = await fetch(location, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

/** Herald's callback, replayed on the test API since PUBLIC_URL is not a real host. */
function callback(api: TestApi, url: URL, stateCookie?: string): Promise<Response> {
  return fetch(`${api.url}${url.pathname}${url.search}`, {
    redirect: 'manual',
    headers: stateCookie ? { cookie: stateCookie } : {},
  });
}

/** The whole round trip as `account`; answers the callback response and the session cookie it set. */
async function signIn(api: TestApi, oauth: OAuthServer, provider: ProviderName, account: ProviderAccount | undefined, query = '') {
  oauth.account = account;
  const started = await start(api, provider, query);
  const response = await callback(api, await authorize(started.location!), started.stateCookie);
  const session = setCookie(response, 'herald_session');
  const body: any = response.status === 302 ? undefined : await response.json();
  return { response, session, body };
}

describe('OAuth sign-in', () => {
  let oauth: OAuthServer;
  let api: TestApi;

  const userRows = (email: string) =>
    api.dataSource.query('SELECT id, email, email_verified, password_hash FROM users WHERE lower(email) = lower($1)', [email]);
  const linkRows = (userId: string) =>
    api.dataSource.query('SELECT provider, provider_user_id, email FROM oauth_accounts WHERE user_id = $1', [userId]);

  beforeAll(async () => {
    oauth = await OAuthServer.start();
    api = await startApi({ env: { PUBLIC_URL, ...oauth.env() } });
  });
  afterAll(async () => {
    await api.close();
    await oauth.close();
  });

  describe('configuration', () => {
    it('lists only the configured providers, with Herald start URLs, and /config agrees', async () => {
      const githubOnly = await startApi({ env: { PUBLIC_URL, ...oauth.env(['github']) } });
      try {
        const client = new Client(githubOnly.url);
        expect((await client.get('/auth/oauth-config')).body).toEqual({
          providers: [{ id: 'github', name: 'GitHub', authorizeUrl: `${PUBLIC_URL}/auth/oauth/github` }],
        });
        expect((await client.get('/config')).body.features.oauth).toEqual({ github: true, google: false });
        const google = await client.get('/auth/oauth/google');
        expect(google.status).toBe(404);
        expect(google.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } });
      } finally {
        await githubOnly.close();
      }
      const both = new Client(api.url);
      expect((await both.get('/auth/oauth-config')).body.providers.map((p: { id: string }) => p.id)).toEqual(['github', 'google']);
      expect((await both.get('/config')).body.features.oauth).toEqual({ github: true, google: true });
      expect((await both.get('/auth/oauth/twitter')).status).toBe(404);
    });

    it('refuses a client id without its secret, and a bad endpoint URL, naming the variable', () => {
      expect(() => loadConfig({ ...process.env, GITHUB_CLIENT_ID: 'x' })).toThrow(ConfigError);
      expect(() => loadConfig({ ...process.env, GITHUB_CLIENT_ID: 'x' })).toThrow(/GITHUB_CLIENT_SECRET/);
      expect(() => loadConfig({ ...process.env, GOOGLE_CLIENT_SECRET: 'x' })).toThrow(/GOOGLE_CLIENT_ID/);
      expect(() => loadConfig({ ...process.env, GOOGLE_TOKEN_URL: 'not a url' })).toThrow(/GOOGLE_TOKEN_URL/);
      expect(() => loadConfig({ ...process.env, GITHUB_API_URL: 'ftp://example.com' })).toThrow(/GITHUB_API_URL/);
    });
  });

  describe('start', () => {
    it('redirects to GitHub with client id, callback, scope and a state kept in a short-lived cookie', async () => {
      const { response, location, stateCookie } = await start(api, 'github');
      expect(response.status).toBe(302);
      expect(`${location!.origin}${location!.pathname}`).toBe(`${oauth.url}/login/oauth/authorize`);
      const params = Object.fromEntries(location!.searchParams);
      expect(params).toEqual({
        client_id: oauth.clientId('github'),
        redirect_uri: `${PUBLIC_URL}/auth/oauth/github/callback`,
        scope: 'read:user user:email',
        state: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
      });
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith('herald_oauth_state='))!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\/auth\/oauth/);
      expect(cookie).toMatch(/Max-Age=600/);
      expect(stateCookie).toBeDefined();
    });

    it('redirects to Google with the OpenID scope and response_type=code', async () => {
      const { location } = await start(api, 'google');
      expect(`${location!.origin}${location!.pathname}`).toBe(`${oauth.url}/o/oauth2/v2/auth`);
      expect(Object.fromEntries(location!.searchParams)).toEqual({
        client_id: oauth.clientId('google'),
        redirect_uri: `${PUBLIC_URL}/auth/oauth/google/callback`,
        response_type: 'code',
        scope: 'openid email profile',
        state: expect.any(String),
      });
    });
  });

  describe('callback', () => {
    it('creates a verified user without a password, signs in, and signs the same user in next time', async () => {
      const account = providerAccount();
      const first = await signIn(api, oauth, 'github', account);
      expect(first.response.status).toBe(302);
      expect(first.response.headers.get('location')).toBe(`${PUBLIC_URL}/`);
      expect(first.response.headers.getSetCookie().join('\n')).toMatch(/herald_session=[^;]+;.*HttpOnly.*SameSite=Lax/);
      expect(setCookie(first.response, 'herald_oauth_state')).toBeUndefined();

      const [user] = await userRows(account.email);
      expect(user).toMatchObject({ email: account.email, email_verified: true, password_hash: null });
      expect(await linkRows(user.id)).toEqual([{ provider: 'github', provider_user_id: account.id, email: account.email }]);
      const me = await new Client(api.url).get('/users/@me', { headers: { cookie: first.session! } });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: user.id, email: account.email, emailVerified: true });

      const [exchange] = oauth.requestsTo('/login/oauth/access_token').slice(-1);
      expect(exchange.headers.accept).toContain('application/json');
      expect(exchange.form).toMatchObject({ client_id: oauth.clientId('github'), client_secret: 'gh-client-secret', redirect_uri: `${PUBLIC_URL}/auth/oauth/github/callback` });

      const second = await signIn(api, oauth, 'github', account);
      expect(second.response.status).toBe(302);
      expect(second.session).not.toBe(first.session);
      expect((await new Client(api.url).get('/users/@me', { headers: { cookie: second.session! } })).body.id).toBe(user.id);
      expect(await userRows(account.email)).toHaveLength(1);
      expect(await linkRows(user.id)).toHaveLength(1);
    });

    it('signs in with Google through the token endpoint and userinfo', async () => {
      const account = providerAccount();
      const { response, session } = await signIn(api, oauth, 'google', account);
      expect(response.status).toBe(302);
      const [user] = await userRows(account.email);
      expect(await linkRows(user.id)).toEqual([{ provider: 'google', provider_user_id: account.id, email: account.email }]);
      expect((await new Client(api.url).get('/users/@me', { headers: { cookie: session! } })).body.id).toBe(user.id);
      expect(oauth.requestsTo('/token').slice(-1)[0].form).toMatchObject({ grant_type: 'authorization_code', client_id: oauth.clientId('google') });
    });

    it('links an existing verified password account by its email and keeps its password', async () => {
      const email = uniqueEmail('linked');
      const signup = await new Client(api.url).post('/auth/signup', { email, password: 'correct horse battery' });
      await markEmailVerified(api, email);
      const account = providerAccount(email.toUpperCase());
      const { response, session } = await signIn(api, oauth, 'github', account);
      expect(response.status).toBe(302);
      const rows = await userRows(email);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: signup.body.id, email_verified: true, password_hash: expect.any(String) });
      expect(await linkRows(signup.body.id)).toEqual([{ provider: 'github', provider_user_id: account.id, email: account.email }]);
      expect((await new Client(api.url).get('/users/@me', { headers: { cookie: session! } })).body.id).toBe(signup.body.id);
      expect((await new Client(api.url).post('/auth/login', { email, password: 'correct horse battery' })).status).toBe(200);
    });

    it('takes an account registered with the unverified address from whoever registered it: password and sessions cleared, email verified, invites applied', async () => {
      const { client: owner, project } = await signupWithProject(api);
      const email = uniqueEmail('squatted');
      const squatter = new Client(api.url);
      const signup = await squatter.post('/auth/signup', { email, password: 'squatter password' });
      expect(signup.body.emailVerified).toBe(false);
      await owner.post(`/projects/${project.id}/members`, { email, role: 'ADMIN' });

      const { response, session } = await signIn(api, oauth, 'google', providerAccount(email));
      expect(response.status).toBe(302);
      expect(await userRows(email)).toEqual([{ id: signup.body.id, email, email_verified: true, password_hash: null }]);
      expect((await squatter.get('/users/@me')).status).toBe(401);
      expect((await new Client(api.url).post('/auth/login', { email, password: 'squatter password' })).status).toBe(401);
      const projects = await new Client(api.url).get('/users/@me/projects', { headers: { cookie: session! } });
      expect(projects.body).toEqual([expect.objectContaining({ id: project.id, role: 'ADMIN' })]);
    });

    it('refuses an account whose email the provider has not verified, storing nothing', async () => {
      for (const provider of ['github', 'google'] as const) {
        const account = providerAccount(uniqueEmail('unverified'), false);
        const { response, session, body } = await signIn(api, oauth, provider, account);
        expect([provider, response.status]).toEqual([provider, 400]);
        expect(body.error.code).toBe('OAUTH_EMAIL_UNVERIFIED');
        expect(body.error.message).toMatch(/no verified .*email address/);
        expect(session).toBeUndefined();
        expect(await userRows(account.email)).toHaveLength(0);
      }
    });

    it('refuses a missing, forged or mismatched state before calling the provider', async () => {
      const account = providerAccount();
      oauth.account = account;
      const exchangesBefore = oauth.requestsTo('/login/oauth/access_token').length;
      const first = await start(api, 'github');
      const second = await start(api, 'github');
      const back = await authorize(first.location!);
      const [payload] = first.stateCookie!.split('=')[1].split('.');
      const attempts = {
        noCookie: await callback(api, back),
        otherAttempt: await callback(api, back, second.stateCookie),
        forged: await callback(api, back, `herald_oauth_state=${payload}.${'0'.repeat(64)}`),
        noState: await callback(api, new URL(back.toString().replace(/state=[^&]*&?/, '')), first.stateCookie),
        otherProvider: await callback(api, new URL(back.toString().replace('/github/', '/google/')), first.stateCookie),
      };
      for (const [name, response] of Object.entries(attempts)) {
        expect([name, response.status]).toEqual([name, 400]);
        expect([name, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([name, 'INVALID_OAUTH_STATE']);
        expect(setCookie(response, 'herald_session')).toBeUndefined();
      }
      expect(oauth.requestsTo('/login/oauth/access_token')).toHaveLength(exchangesBefore);
      expect(await userRows(account.email)).toHaveLength(0);
    });

    it('answers 400 when the user cancels at the provider and 502 when the code is refused, storing nothing', async () => {
      const denied = await signIn(api, oauth, 'github', undefined);
      expect(denied.response.status).toBe(400);
      expect(denied.body).toMatchObject({ success: false, error: { code: 'OAUTH_DENIED', statusCode: 400 } });
      expect(denied.body.error.message).toContain('access_denied');

      const account = providerAccount();
      oauth.account = account;
      const started = await start(api, 'github');
      const back = await authorize(started.location!);
      back.searchParams.set('code', 'not-a-code-github-issued');
      const refused = await callback(api, back, started.stateCookie);
      expect(refused.status).toBe(502);
      expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'OAUTH_PROVIDER_ERROR',
        message: expect.stringContaining('bad_verification_code'),
      });
      expect(await userRows(account.email)).toHaveLength(0);
    });

    it('goes back to a relative redirect path and ignores absolute ones', async () => {
      const account = providerAccount();
      const cases: [string, string][] = [
        ['/projects/abc?tab=members', `${PUBLIC_URL}/projects/abc?tab=members`],
        ['https://evil.example/steal', `${PUBLIC_URL}/`],
        ['//evil.example/steal', `${PUBLIC_URL}/`],
        ['/\\evil.example', `${PUBLIC_URL}/`],
      ];
      for (const [redirect, expected] of cases) {
        const { response } = await signIn(api, oauth, 'github', account, `?redirect=${encodeURIComponent(redirect)}`);
        expect([redirect, response.headers.get('location')]).toEqual([redirect, expected]);
      }
    });

    it('joins the pending project invites of a new OAuth user', async () => {
      const { client, project } = await signupWithProject(api);
      const account = providerAccount(uniqueEmail('invitee'));
      expect((await client.post(`/projects/${project.id}/members`, { email: account.email, role: 'ADMIN' })).status).toBe(201);
      const { session } = await signIn(api, oauth, 'google', account);
      const [user] = await userRows(account.email);
      const members = await api.dataSource.query('SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2', [project.id, user.id]);
      expect(members).toEqual([{ role: 'ADMIN' }]);
      expect(await api.dataSource.query('SELECT 1 FROM project_invites WHERE project_id = $1', [project.id])).toHaveLength(0);
      const projects = await new Client(api.url).get('/users/@me/projects', { headers: { cookie: session! } });
      expect(projects.body.map((p: { id: string }) => p.id)).toEqual([project.id]);
    });

    it('gives an OAuth-only user the wrong-password 401 until they set a password by reset', async () => {
      const account = providerAccount();
      await signIn(api, oauth, 'github', account);
      const login = await new Client(api.url).post('/auth/login', { email: account.email, password: 'any password at all' });
      expect(login.status).toBe(401);
      expect(login.body.error).toMatchObject({ code: 'INVALID_CREDENTIALS', message: 'Invalid email or password' });

      expect((await new Client(api.url).post('/auth/request-password-reset', { email: account.email })).status).toBe(200);
      const [mail] = await api.dataSource.query(
        `SELECT text FROM outbox_messages WHERE $1 = ANY("to") AND text LIKE '%reset%' ORDER BY created_at DESC LIMIT 1`,
        [account.email],
      );
      const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
      expect((await new Client(api.url).post('/auth/reset-password', { token, password: 'a first password' })).status).toBe(200);
      expect((await new Client(api.url).post('/auth/login', { email: account.email, password: 'a first password' })).status).toBe(200);
    });
  });

  describe('with DISABLE_SIGNUPS=true', () => {
    let closed: TestApi;
    beforeAll(async () => {
      closed = await startApi({ env: { PUBLIC_URL, DISABLE_SIGNUPS: 'true', ...oauth.env() } });
    });
    afterAll(() => closed.close());

    it('refuses to create a user but signs in an existing one', async () => {
      const stranger = providerAccount();
      const refused = await signIn(closed, oauth, 'github', stranger);
      expect(refused.response.status).toBe(403);
      expect(refused.body.error.code).toBe('SIGNUPS_DISABLED');
      expect(await userRows(stranger.email)).toHaveLength(0);

      const email = uniqueEmail('existing');
      const signup = await new Client(api.url).post('/auth/signup', { email, password: 'correct horse battery' });
      const allowed = await signIn(closed, oauth, 'google', providerAccount(email));
      expect(allowed.response.status).toBe(302);
      expect((await new Client(closed.url).get('/users/@me', { headers: { cookie: allowed.session! } })).body.id).toBe(signup.body.id);
    });
  });
});
