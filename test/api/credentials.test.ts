import { ROUTE_TABLES } from '../../src/route-tables';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

const endpoints = ROUTE_TABLES.flatMap((table) => table.endpoints);
const ID = '00000000-0000-4000-8000-000000000000';
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, ID);
const name = (route: { method: string; path: string }) => `${route.method.toUpperCase()} ${route.path}`;

/** The endpoints anyone may call: sign-in, subscription pages, provider webhooks (signed or secret), health, uploaded images. */
const PUBLIC = [
  'GET /health',
  'GET /config',
  'GET /uploads/{projectId}/{file}',
  'POST /webhooks/mail-events',
  'POST /webhooks/incoming/payments',
  'GET /unsubscribe/{token}',
  'POST /unsubscribe/{token}',
  'GET /subscribe/{token}',
  'POST /subscribe/{token}',
  'GET /manage/{token}',
  'POST /manage/{token}',
  'POST /auth/signup',
  'POST /auth/login',
  'GET /auth/logout',
  'GET /auth/oauth-config',
  'GET /auth/oauth/{provider}',
  'GET /auth/oauth/{provider}/callback',
  'POST /auth/verify-email',
  'POST /auth/request-verification',
  'POST /auth/request-password-reset',
  'POST /auth/reset-password',
];

describe('the credential each endpoint states', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ env: { SES_REGION: '', SMTP_URL: '' } });
  });
  afterAll(() => api.close());

  it('serves the outbox in this test (no SES or SMTP configured), so its routes are checked too', () => {
    expect(api.config.transport).toBe('outbox');
  });

  it('leaves only the sign-in, page, webhook, health and image endpoints open, and only POST /v1/track to the public key', () => {
    expect(endpoints.filter((route) => route.credential === 'none').map(name).sort()).toEqual([...PUBLIC].sort());
    expect(endpoints.filter((route) => route.credential === 'key').map(name)).toEqual(['POST /v1/track']);
  });

  it.each(endpoints.filter((route) => route.credential !== 'none').map((route) => [name(route), route]))(
    '%s refuses a caller without its credential with 401 and a body never read',
    async (_name, route) => {
      const answer = await new Client(api.url).call(route.method.toUpperCase(), concrete(route.path), { rawBody: route.method === 'get' ? undefined : '{' });
      expect([answer.status, answer.body?.error?.code]).toEqual([401, expect.stringMatching(/^(INVALID_API_KEY|UNAUTHORIZED)$/)]);
    },
  );

  it.each(endpoints.filter((route) => route.credential === 'secret').map((route) => [name(route), route]))(
    '%s refuses the public key with 401',
    async (_name, route) => {
      const { project } = await projectOnce();
      const answer = await new Client(api.url).call(route.method.toUpperCase(), concrete(route.path), { key: project.publicKey });
      expect([answer.status, answer.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
    },
  );

  let shared: Awaited<ReturnType<typeof signupWithProject>> | undefined;
  async function projectOnce() {
    shared ??= await signupWithProject(api, 'Credentials');
    return shared;
  }
});
