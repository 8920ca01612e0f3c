import * as argon2 from '@node-rs/argon2';
import { ConfigError, loadConfig } from '../../src/config';
import { Client, signupWithProject, startApi, uniqueEmail, type Answer, type TestApi } from '../support/api';
import { withinOneMinute } from '../support/wait';

jest.mock('@node-rs/argon2', () => {
  const actual = jest.requireActual('@node-rs/argon2');
  return { ...actual, hash: jest.fn(actual.hash), verify: jest.fn(actual.verify) };
});

/** How many times argon2 hashed or verified a password so far. */
const argonCalls = () => (argon2.hash as jest.Mock).mock.calls.length + (argon2.verify as jest.Mock).mock.calls.length;

const PASSWORD = 'correct horse battery';

let addresses = 0;
/** A client address of its own, told through X-Forwarded-For (the tests connect from loopback, a trusted proxy). */
function newAddress(): string {
  addresses += 1;
  return `203.0.113.${addresses}`;
}

/** A POST from `address`, on a fresh client (no cookie). */
const postFrom = (api: TestApi, address: string, path: string, body: unknown) =>
  new Client(api.url).post(path, body, { headers: { 'x-forwarded-for': address } });

const outboxCount = async (api: TestApi, email: string) =>
  (await api.dataSource.query('SELECT count(*)::int AS n FROM outbox_messages WHERE $1 = ANY("to")', [email]))[0].n;

/**
 * The longest Retry-After of a per-email budget of `window` seconds. The budget is estimated
 * from two fixed windows (test/rate-limits/sliding-budget.test.ts has the exact figures): a
 * burst early in one window keeps weight into the next, so the wait can pass `window` by up
 * to one more window, depending on the time of day the test runs.
 */
const budgetWait = (window: number) => 2 * window;

function expectRateLimited(answer: Answer, maxRetryAfter: number) {
  expect([answer.status, answer.body.error.code]).toEqual([429, 'RATE_LIMITED']);
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
}

describe('/auth throttling', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  describe('per account email', () => {
    it('refuses sign-in to an email after 10 failures in 15 minutes, with the right password too, without running argon2', async () => {
      const email = uniqueEmail('guessed');
      await new Client(api.url).post('/auth/signup', { email, password: PASSWORD });
      for (let i = 0; i < 3; i += 1) expect((await new Client(api.url).post('/auth/login', { email, password: PASSWORD })).status).toBe(200);
      const atStart = argonCalls();
      for (let i = 0; i < 10; i += 1) {
        expect((await new Client(api.url).post('/auth/login', { email, password: `guess number ${i}` })).status).toBe(401);
      }
      const before = argonCalls();
      expect(before - atStart).toBe(10);
      const refused = await new Client(api.url).post('/auth/login', { email: email.toUpperCase(), password: PASSWORD });
      expectRateLimited(refused, budgetWait(15 * 60));
      expect(refused.body.error.message).toMatch(/^Too many failed sign-ins for this email address; try again in \d+ minutes?$/);
      expect(refused.body.error.suggestion).toContain('POST /auth/request-password-reset');
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(argonCalls()).toBe(before);

      const other = uniqueEmail('other');
      await new Client(api.url).post('/auth/signup', { email: other, password: PASSWORD });
      expect((await new Client(api.url).post('/auth/login', { email: other, password: PASSWORD })).status).toBe(200);
    });

    it('counts every spelling the account lookup takes for one address against one budget (case, Unicode İ for i)', async () => {
      const email = uniqueEmail('victim');
      await new Client(api.url).post('/auth/signup', { email, password: PASSWORD });
      const variant = email.replace('i', '\u0130');
      // The lookup finds the account under the variant: a wrong password is a 401, not an unknown account's.
      for (let i = 0; i < 5; i += 1) expect((await new Client(api.url).post('/auth/login', { email: variant, password: `guess ${i}` })).status).toBe(401);
      for (let i = 0; i < 5; i += 1) expect((await new Client(api.url).post('/auth/login', { email: email.toUpperCase(), password: `guess ${i}` })).status).toBe(401);
      const before = argonCalls();
      expectRateLimited(await new Client(api.url).post('/auth/login', { email, password: PASSWORD }), budgetWait(15 * 60));
      expectRateLimited(await new Client(api.url).post('/auth/login', { email: variant, password: PASSWORD }), budgetWait(15 * 60));
      expect(argonCalls()).toBe(before);
    });

    it('counts an email without an account alike, so the 429 reveals no account', async () => {
      const email = uniqueEmail('nobody');
      for (let i = 0; i < 10; i += 1) expect((await new Client(api.url).post('/auth/login', { email, password: PASSWORD })).status).toBe(401);
      expectRateLimited(await new Client(api.url).post('/auth/login', { email, password: PASSWORD }), budgetWait(15 * 60));
    });

    it('sends at most 5 account emails to an address per hour across sign-up, verification, password reset and invitations', async () => {
      const { client: owner, project } = await signupWithProject(api);
      const email = uniqueEmail('target');
      const target = new Client(api.url);
      expect((await target.post('/auth/signup', { email, password: PASSWORD })).status).toBe(201);
      expect((await target.post('/auth/request-verification', { email })).status).toBe(200);
      expect((await target.post('/auth/request-password-reset', { email })).status).toBe(200);
      expect((await target.post('/auth/request-password-reset', { email })).status).toBe(200);
      expect((await owner.post(`/projects/${project.id}/members`, { email })).status).toBe(201);
      expect(await outboxCount(api, email)).toBe(5);

      const reset = await target.post('/auth/request-password-reset', { email: email.toUpperCase() });
      expectRateLimited(reset, budgetWait(3600));
      expect(reset.body.error.message).toMatch(/^Too many emails were sent to .* in the last hour; try again in \d+ minutes?$/);
      expectRateLimited(await target.post('/auth/request-verification', { email }), budgetWait(3600));
      const { client: other, project: otherProject } = await signupWithProject(api);
      expectRateLimited(await other.post(`/projects/${otherProject.id}/members`, { email }), budgetWait(3600));
      expect(await api.dataSource.query('SELECT 1 FROM project_invites WHERE project_id = $1', [otherProject.id])).toEqual([]);
      expect(await outboxCount(api, email)).toBe(5);
    });

    it('counts requests for an address without an account, and refuses a sign-up past the budget before hashing', async () => {
      const email = uniqueEmail('unknown');
      for (let i = 0; i < 5; i += 1) expect((await new Client(api.url).post('/auth/request-password-reset', { email })).status).toBe(200);
      expectRateLimited(await new Client(api.url).post('/auth/request-password-reset', { email }), budgetWait(3600));
      const before = argonCalls();
      expectRateLimited(await new Client(api.url).post('/auth/signup', { email, password: PASSWORD }), budgetWait(3600));
      expect(argonCalls()).toBe(before);
      expect(await api.dataSource.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [email])).toEqual([]);
      expect(await outboxCount(api, email)).toBe(0);
    });

    it('refuses an unknown password-reset token without hashing the new password', async () => {
      const before = argonCalls();
      const answer = await new Client(api.url).post('/auth/reset-password', { token: 'not-a-token', password: 'a long new password' });
      expect([answer.status, answer.body.error.code]).toEqual([400, 'INVALID_TOKEN']);
      expect(argonCalls()).toBe(before);
    });
  });

  describe('per client address', () => {
    let limited: TestApi;
    let untrusting: TestApi;

    beforeAll(async () => {
      limited = await startApi({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '5' } });
      untrusting = await startApi({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'false' } });
    });
    afterAll(async () => {
      await limited.close();
      await untrusting.close();
    });

    it('allows AUTH_RATE_LIMIT_PER_MINUTE requests a minute from one address across the throttled endpoints, then 429 before argon2', async () => {
      await withinOneMinute(10);
      const address = newAddress();
      const email = uniqueEmail('crowd');
      const statuses = [
        (await postFrom(limited, address, '/auth/signup', { email, password: PASSWORD })).status,
        (await postFrom(limited, address, '/auth/login', { email, password: 'wrong password' })).status,
        (await postFrom(limited, address, '/auth/request-verification', { email })).status,
        (await postFrom(limited, address, '/auth/request-password-reset', { email })).status,
        (await postFrom(limited, address, '/auth/reset-password', { token: 'not-a-token', password: 'a long new password' })).status,
      ];
      expect(statuses).toEqual([201, 401, 200, 200, 400]);
      const before = argonCalls();
      const refused = await postFrom(limited, address, '/auth/login', { email, password: PASSWORD });
      expectRateLimited(refused, 60);
      expect(refused.headers.get('ratelimit-limit')).toBe('5');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(argonCalls()).toBe(before);

      expect((await postFrom(limited, newAddress(), '/auth/login', { email, password: PASSWORD })).status).toBe(200);
      expect((await new Client(limited.url).get('/auth/oauth-config', { headers: { 'x-forwarded-for': address } })).status).toBe(200);
    });

    it('reads TRUST_PROXY as Express takes it and refuses anything else, naming the variable', () => {
      const trust = (value: string) => loadConfig({ ...process.env, TRUST_PROXY: value }).trustProxy;
      expect([trust('false'), trust('2'), trust('10.0.0.0/8, loopback'), loadConfig({ ...process.env, TRUST_PROXY: '' }).trustProxy])
        .toEqual([false, 2, '10.0.0.0/8, loopback', 'loopback']);
      expect(() => trust('proxy.internal')).toThrow(new ConfigError(
        'TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of addresses, CIDRs and loopback, linklocal, uniquelocal; got "proxy.internal"',
      ));
    });

    it('ignores X-Forwarded-For from a peer that is not a trusted proxy (TRUST_PROXY=false): the peer address is counted', async () => {
      await withinOneMinute(10);
      const statuses = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await postFrom(untrusting, newAddress(), '/auth/request-password-reset', { email: uniqueEmail('spoof') })).status);
      }
      expect(statuses[3]).toBe(429);
    });
  });
});
