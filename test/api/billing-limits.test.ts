import { randomUUID } from 'node:crypto';
import { Client, markEmailVerified, projectWithVerifiedDomain, signupWithProject, type TestApi } from '../support/api';
import { emailTag, type SesServer } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { until } from '../support/wait';

const env = { TEMPORAL_TASK_QUEUE: 'billing-limits-test' };

/** The current billing period as the API reports it: the calendar month in UTC. */
function thisMonth() {
  const now = new Date();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  };
}

/** Polls the project's email records until none is QUEUED. */
const settled = (api: TestApi, projectId: string) =>
  until(
    () => api.dataSource.query('SELECT id, status FROM emails WHERE project_id = $1', [projectId]),
    (rows) => rows.every((row: { status: string }) => row.status !== 'QUEUED'),
    'no email to be QUEUED',
  );

describe('billing limits and consumption', () => {
  let ses: SesServer;
  let stack: SesStack;
  let api: TestApi;
  let owner: Client;
  let key: string;
  let projectId: string;
  let domain: string;

  beforeAll(async () => {
    stack = await startSesStack(env);
    ({ api, ses } = stack);
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    const created = await projectWithVerifiedDomain(api);
    ({ client: owner, key, domain } = created);
    projectId = created.project.id;
  });

  const limitsPath = () => `/users/@me/projects/${projectId}/billing-limits`;
  const consumptionPath = () => `/users/@me/projects/${projectId}/billing-consumption`;
  const setLimits = (body: unknown, client = owner) => client.call('PUT', limitsPath(), { body });
  const consumption = async () => (await owner.get(consumptionPath())).body;
  const send = (to: unknown) => stack.client.post('/v1/send', { from: `hello@mail.${domain}`, to, subject: 'Hi', body: '<p>Hi</p>' }, { key });
  const count = async (table: 'emails' | 'contacts') =>
    (await api.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]))[0].n;
  const capturedForProject = () => ses.emails.filter((captured) => emailTag(captured, 'projectId') === projectId);

  describe('GET and PUT /users/@me/projects/{id}/billing-limits', () => {
    it('starts without caps, sets them, keeps omitted ones and clears one with null', async () => {
      expect((await owner.get(limitsPath())).body).toEqual({ period: thisMonth(), limits: { emails: null, contacts: null }, updatedAt: null });

      const set = await setLimits({ emails: 1000, contacts: 50 });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ period: thisMonth(), limits: { emails: 1000, contacts: 50 }, updatedAt: expect.any(String) });

      expect((await setLimits({ contacts: null })).body.limits).toEqual({ emails: 1000, contacts: null });
      expect((await setLimits({})).body.limits).toEqual({ emails: 1000, contacts: null });
      expect((await setLimits({ emails: 0 })).body.limits).toEqual({ emails: 0, contacts: null });
      expect((await owner.get(limitsPath())).body.limits).toEqual({ emails: 0, contacts: null });
    });

    it('refuses invalid bodies with 422 and changes nothing', async () => {
      await setLimits({ emails: 10 });
      const cases: [unknown, string][] = [
        [{ emails: -1 }, 'emails'],
        [{ emails: 1.5 }, 'emails'],
        [{ emails: '10' }, 'emails'],
        [{ contacts: true }, 'contacts'],
        [{ emails: 2 ** 31 }, 'emails'],
        [{ sms: 5 }, 'sms'],
        [[1, 2], 'body'],
      ];
      for (const [body, field] of cases) {
        const answer = await setLimits(body);
        expect([body, answer.status, answer.body.error.code]).toEqual([body, 422, 'VALIDATION_ERROR']);
        expect(answer.body.error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      }
      const both = await setLimits({ contacts: -1, sms: 5 });
      expect(both.body.error.errors.map((error: { field: string }) => error.field).sort()).toEqual(['contacts', 'sms']);
      expect((await owner.get(limitsPath())).body.limits).toEqual({ emails: 10, contacts: null });
    });

    it('lets a MEMBER read but not change them, and answers 404 to non-members and 401 without a session', async () => {
      const member = await signupWithProject(api, 'Member own project');
      await markEmailVerified(api, member.email);
      expect((await owner.post(`/projects/${projectId}/members`, { email: member.email, role: 'MEMBER' })).status).toBe(201);
      await setLimits({ emails: 10 });

      expect((await member.client.get(limitsPath())).body.limits).toEqual({ emails: 10, contacts: null });
      expect((await member.client.get(consumptionPath())).status).toBe(200);
      const refused = await setLimits({ emails: 20 }, member.client);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
      expect((await owner.get(limitsPath())).body.limits.emails).toBe(10);

      const outsider = await signupWithProject(api, 'Outsider');
      for (const answer of [
        await outsider.client.get(limitsPath()),
        await setLimits({ emails: 1 }, outsider.client),
        await outsider.client.get(consumptionPath()),
        await outsider.client.get('/users/@me/projects/not-a-uuid/billing-limits'),
      ]) {
        expect([answer.status, answer.body.error.code]).toEqual([404, 'NOT_FOUND']);
      }
      expect((await new Client(api.url).get(limitsPath())).status).toBe(401);
    });
  });

  describe('GET /users/@me/projects/{id}/billing-consumption', () => {
    it('counts this period’s emails that were or will be sent, and the contacts stored', async () => {
      expect(await consumption()).toEqual({
        period: thisMonth(),
        emails: { used: 0, limit: null, remaining: null },
        contacts: { used: 0, limit: null, remaining: null },
      });

      ses.failNext(1, 400, 'MessageRejected', 'Email address is not verified.');
      expect((await send('rejected@example.com')).status).toBe(200);
      expect(await settled(api, projectId)).toEqual([expect.objectContaining({ status: 'FAILED' })]);

      await api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'gone@example.com', 'BOUNCE')`, [projectId]);
      const answer = await send(['ada@example.com', 'bob@example.com', 'gone@example.com']);
      expect(answer.body.data.emails.map((email: { status: string }) => email.status)).toEqual(['QUEUED', 'QUEUED', 'SUPPRESSED']);
      // A queued email holds its slot: the figures are the same before and after delivery.
      expect((await consumption()).emails.used).toBe(2);

      const insertEmail = (status: string, createdAt: string) =>
        api.dataSource.query(
          `INSERT INTO emails (project_id, source, type, to_email, "from", subject, body, status, created_at)
           VALUES ($1, 'SEND', 'TRANSACTIONAL', 'old@example.com', 'a@b.c', 's', 'b', $2, $3)`,
          [projectId, status, createdAt],
        );
      await insertEmail('SENT', new Date(Date.parse(thisMonth().start) - 1000).toISOString());
      await insertEmail('SKIPPED', new Date().toISOString());
      await setLimits({ emails: 10, contacts: 100 });

      await settled(api, projectId);
      expect(await consumption()).toEqual({
        period: thisMonth(),
        emails: { used: 2, limit: 10, remaining: 8 },
        contacts: { used: 4, limit: 100, remaining: 96 },
      });

      await setLimits({ emails: 1 });
      expect((await consumption()).emails).toEqual({ used: 2, limit: 1, remaining: 0 });
    });
  });

  describe('enforcement', () => {
    it('accepts exactly the cap out of concurrent sends and refuses the rest with 403 BILLING_LIMIT_EXCEEDED', async () => {
      await setLimits({ emails: 5 });
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => send(`racer-${i}@example.com`)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(403)]);
      for (const refused of answers.filter((answer) => answer.status === 403)) {
        expect(refused.body.error).toMatchObject({
          code: 'BILLING_LIMIT_EXCEEDED',
          details: { category: 'emails', limit: 5, requested: 1 },
        });
        expect(refused.body.error.message).toContain('5 emails');
      }

      expect(await count('emails')).toBe(5);
      expect(await count('contacts')).toBe(5);
      const rows = await settled(api, projectId);
      expect(rows.map((row: { status: string }) => row.status)).toEqual(Array(5).fill('SENT'));
      expect(capturedForProject()).toHaveLength(5);
      expect((await consumption()).emails).toEqual({ used: 5, limit: 5, remaining: 0 });
    });

    it('refuses a multi-recipient request over the cap as a whole: no email, no contact stored', async () => {
      await setLimits({ emails: 2 });
      const refused = await send(['one@example.com', 'two@example.com', 'three@example.com']);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'BILLING_LIMIT_EXCEEDED']);
      expect(refused.body.error.details).toMatchObject({ category: 'emails', limit: 2, used: 0, requested: 3 });
      expect(refused.body.error.message).toMatch(/may send 2 emails in \w+ \d{4} and has used 0; this needs 3 more/);
      expect(await count('emails')).toBe(0);
      expect(await count('contacts')).toBe(0);

      // Suppressed recipients do not count against the cap.
      await api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'three@example.com', 'MANUAL')`, [projectId]);
      const accepted = await send(['one@example.com', 'two@example.com', 'three@example.com']);
      expect(accepted.status).toBe(200);
      await settled(api, projectId);
      expect(capturedForProject()).toHaveLength(2);
    });

    it('lets a delivery workflow whose email never committed end without sending', async () => {
      const emailId = randomUUID();
      const outcome = await stack.temporal.client.workflow.execute('deliverEmail', {
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        workflowId: `email/${emailId}`,
        args: [emailId],
      });
      expect(outcome).toBe('MISSING');
      expect(ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId)).toHaveLength(0);
    }, 120_000);

    it('creates exactly the contacts cap out of concurrent POST /contacts, then refuses new contacts but updates existing ones', async () => {
      await setLimits({ contacts: 4 });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => stack.client.post('/contacts', { email: `c${i}@example.com` }, { key })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(4).fill(201), ...Array(6).fill(403)]);
      for (const refused of answers.filter((answer) => answer.status === 403)) {
        expect(refused.body.error).toMatchObject({ code: 'BILLING_LIMIT_EXCEEDED', details: { category: 'contacts', limit: 4 } });
      }
      expect(await count('contacts')).toBe(4);

      const existing = answers.find((answer) => answer.status === 201)!.body;
      const updated = await stack.client.post('/contacts', { email: existing.email, data: { plan: 'pro' } }, { key });
      expect(updated.status).toBe(200);
      const tracked = await stack.client.post('/v1/track', { email: 'newcomer@example.com', event: 'signup' }, { key });
      expect([tracked.status, tracked.body.error.code]).toEqual([403, 'BILLING_LIMIT_EXCEEDED']);
      expect(await count('contacts')).toBe(4);
      expect((await consumption()).contacts).toEqual({ used: 4, limit: 4, remaining: 0 });
    });
  });
});
