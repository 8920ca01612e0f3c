import { projectWithVerifiedDomain, type Answer } from '../support/api';
import { emailTag, type CapturedEmail } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { eventually } from '../support/wait';

const recipients = (captured: CapturedEmail[]) => captured.flatMap((email) => email.request.Destination?.ToAddresses ?? []);

describe('suppression list', () => {
  let stack: SesStack;

  beforeAll(async () => {
    stack = await startSesStack({ TEMPORAL_TASK_QUEUE: 'suppressions-test' });
  });
  afterAll(() => stack.close());

  /** A new project with a verified domain and calls bound to its secret key. */
  async function project() {
    const { project: created, key, domain } = await projectWithVerifiedDomain(stack.api);
    return {
      id: created.id as string,
      publicKey: created.publicKey as string,
      from: `hello@${domain}`,
      get: (path: string) => stack.client.get(path, { key }),
      post: (path: string, body?: unknown) => stack.client.post(path, body, { key }),
      patch: (path: string, body?: unknown) => stack.client.patch(path, body, { key }),
      delete: (path: string) => stack.client.delete(path, { key }),
    };
  }
  type Project = Awaited<ReturnType<typeof project>>;

  const values = (answer: Answer) => answer.body.data.map((entry: { value: string }) => entry.value);

  describe('API', () => {
    it('adds an address and a whole domain (lower-case, MANUAL), reads, lists newest first and removes them, leaving the contact unsubscribed', async () => {
      const p = await project();
      const address = await p.post('/suppressions', { email: 'Ada@Example.COM' });
      expect(address.status).toBe(201);
      expect(address.body).toEqual({ type: 'EMAIL', value: 'ada@example.com', reason: 'MANUAL', createdAt: expect.any(String) });
      const domain = await p.post('/suppressions', { domain: 'Spam.Example.ORG' });
      expect(domain.status).toBe(201);
      expect(domain.body).toEqual({ type: 'DOMAIN', value: 'spam.example.org', reason: 'MANUAL', createdAt: expect.any(String) });

      const again = await p.post('/suppressions', { email: 'ada@example.com' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(address.body);

      expect((await p.get('/suppressions/ADA@example.com')).body).toEqual(address.body);
      expect((await p.get('/suppressions/spam.example.org')).body).toEqual(domain.body);
      expect((await p.get('/suppressions/someone@spam.example.org')).status).toBe(404);

      const list = await p.get('/suppressions');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ data: [domain.body, address.body], cursor: null, hasMore: false, total: 2 });

      expect((await p.post('/contacts', { email: 'ada@example.com', subscribed: false })).status).toBe(201);
      expect(await p.delete('/suppressions/Ada@Example.com')).toMatchObject({ status: 200, body: { success: true } });
      expect((await p.get('/contacts?search=ada@example.com')).body.data).toEqual([expect.objectContaining({ subscribed: false })]);
      expect((await p.get('/suppressions/ada@example.com')).status).toBe(404);
      const missing = await p.delete('/suppressions/ada@example.com');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
      expect(values(await p.get('/suppressions'))).toEqual(['spam.example.org']);
    });

    it('pages with a cursor and filters by type, reason and search', async () => {
      const p = await project();
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await p.post('/suppressions', { email });
      await p.post('/suppressions', { domain: 'blocked.example' });
      await stack.api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'bounced@example.net', 'BOUNCE')`, [p.id]);

      const first = await p.get('/suppressions?limit=2');
      expect(first.body).toMatchObject({ hasMore: true, total: 5, cursor: expect.any(String) });
      expect(values(first)).toEqual(['bounced@example.net', 'blocked.example']);
      const second = await p.get(`/suppressions?limit=2&cursor=${first.body.cursor}`);
      expect(second.body).toMatchObject({ hasMore: true, total: 0 });
      expect(values(second)).toEqual(['c@example.com', 'b@example.com']);
      const third = await p.get(`/suppressions?limit=2&cursor=${second.body.cursor}`);
      expect(third.body).toMatchObject({ hasMore: false, cursor: null });
      expect(values(third)).toEqual(['a@example.com']);

      expect(values(await p.get('/suppressions?type=DOMAIN'))).toEqual(['blocked.example']);
      expect((await p.get('/suppressions?type=email')).body.total).toBe(4);
      expect(values(await p.get('/suppressions?reason=BOUNCE'))).toEqual(['bounced@example.net']);
      expect(values(await p.get('/suppressions?search=B%40EXAMPLE.C'))).toEqual(['b@example.com']);
      expect(values(await p.get('/suppressions?search=%25'))).toEqual([]);
      expect((await p.get('/suppressions?type=ADDRESS')).status).toBe(400);
      expect((await p.get('/suppressions?reason=SPAM')).body.error.code).toBe('BAD_REQUEST');
    });

    it('refuses both or neither of email and domain, and a bad address or domain, with 422 and nothing stored', async () => {
      const p = await project();
      const cases: [unknown, string[]][] = [
        [{}, ['email', 'domain']],
        [{ email: 'a@example.com', domain: 'example.com' }, ['email', 'domain']],
        [{ email: 'not an address' }, ['email']],
        [{ domain: 'not a domain' }, ['domain']],
        [{ domain: 'localhost' }, ['domain']],
        [{ domain: '192.168.0.1' }, ['domain']],
        [{ domain: 42 }, ['domain']],
      ];
      for (const [body, fields] of cases) {
        const answer = await p.post('/suppressions', body);
        expect([body, answer.status, answer.body.error.code]).toEqual([body, 422, 'VALIDATION_ERROR']);
        expect(answer.body.error.errors.map((error: { field: string }) => error.field)).toEqual(fields);
      }
      expect((await p.get('/suppressions')).body.total).toBe(0);
    });

    it('needs the secret key and never shows another project\'s entries', async () => {
      const p = await project();
      await p.post('/suppressions', { email: 'mine@example.com' });
      const wrongKey = await stack.client.get('/suppressions', { key: p.publicKey });
      expect([wrongKey.status, wrongKey.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
      expect((await stack.client.post('/suppressions', { email: 'x@example.com' }, { key: p.publicKey })).status).toBe(401);
      expect((await stack.client.get('/suppressions')).status).toBe(401);

      const other = await project();
      expect((await other.get('/suppressions')).body).toMatchObject({ data: [], total: 0 });
      expect((await other.get('/suppressions/mine@example.com')).status).toBe(404);
      expect((await other.delete('/suppressions/mine@example.com')).status).toBe(404);
      expect((await p.get('/suppressions/mine@example.com')).status).toBe(200);
    });
  });

  describe('honoured by every send path', () => {
    let p: Project;
    beforeEach(async () => {
      p = await project();
      expect((await p.post('/suppressions', { email: 'blocked@example.com' })).status).toBe(201);
      expect((await p.post('/suppressions', { domain: 'blocked.example' })).status).toBe(201);
    });

    const capturedFor = (emailId: string) => stack.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId);
    /** Every address the project's email went to through SES. */
    const projectRecipients = () => recipients(stack.ses.emails.filter((captured) => emailTag(captured, 'projectId') === p.id));
    const statusOf = async (emailId: string) => (await stack.api.dataSource.query('SELECT status FROM emails WHERE id = $1', [emailId]))[0].status;

    it('/v1/send: SUPPRESSED for a listed address or domain, nothing sent; sent again once removed; subdomains not covered', async () => {
      const send = (to: string[]) => p.post('/v1/send', { to, from: p.from, subject: 'Hi', body: '<p>Hi</p>' });
      const answer = await send(['blocked@example.com', 'anyone@blocked.example', 'someone@mail.blocked.example']);
      expect(answer.status).toBe(200);
      const [address, domain, subdomain] = answer.body.data.emails;
      expect([address.status, domain.status, subdomain.status]).toEqual(['SUPPRESSED', 'SUPPRESSED', 'QUEUED']);
      await eventually(async () => (await statusOf(subdomain.email)) === 'SENT', 'the subdomain address to be sent');
      expect(capturedFor(address.email)).toEqual([]);
      expect(capturedFor(domain.email)).toEqual([]);
      expect(await statusOf(address.email)).toBe('SUPPRESSED');

      expect((await p.delete('/suppressions/blocked@example.com')).status).toBe(200);
      expect((await p.delete('/suppressions/blocked.example')).status).toBe(200);
      const resent = await send(['blocked@example.com', 'anyone@blocked.example']);
      const ids = resent.body.data.emails.map((email: { email: string; status: string }) => {
        expect(email.status).toBe('QUEUED');
        return email.email;
      });
      for (const id of ids) await eventually(async () => (await statusOf(id)) === 'SENT', 'the email to be sent');
      expect(recipients(ids.flatMap(capturedFor)).sort()).toEqual(['anyone@blocked.example', 'blocked@example.com']);
    });

    it('campaigns: a suppressed address and an address at a suppressed domain get nothing, the others one email each', async () => {
      const audience = ['ada@example.com', 'bob@example.org', 'blocked@example.com', 'carol@blocked.example'];
      for (const email of audience) expect((await p.post('/contacts', { email })).status).toBe(201);
      const created = await p.post('/campaigns', { name: 'News', subject: 'News', body: '<p>News</p>', from: p.from, audienceType: 'ALL' });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect((await p.post(`/campaigns/${id}/send`)).status).toBe(200);
      const row = await eventually(async () => {
        const [campaign] = await stack.api.dataSource.query('SELECT status, total_recipients, sent_count FROM campaigns WHERE id = $1', [id]);
        return campaign.status === 'SENT' ? campaign : undefined;
      }, 'the campaign to be sent');
      expect(row).toMatchObject({ total_recipients: 2, sent_count: 2 });
      const emails: { id: string; to_email: string }[] = await stack.api.dataSource.query('SELECT id, to_email FROM emails WHERE campaign_id = $1', [id]);
      expect(emails.map((email) => email.to_email).sort()).toEqual(['ada@example.com', 'bob@example.org']);
      expect(recipients(emails.flatMap((email) => capturedFor(email.id))).sort()).toEqual(['ada@example.com', 'bob@example.org']);
      expect(projectRecipients().sort()).toEqual(['ada@example.com', 'bob@example.org']);
    });

    it('workflows: SEND_EMAIL skips a suppressed contact, records the skip and sends nothing', async () => {
      const created = await p.post('/workflows', { name: 'Welcome', triggerConfig: { eventName: 'signed_up' } });
      expect(created.status).toBe(201);
      const id = created.body.id;
      const send = await p.post(`/workflows/${id}/steps`, { type: 'SEND_EMAIL', config: { subject: 'Welcome', body: '<p>Welcome</p>', from: p.from, type: 'TRANSACTIONAL' } });
      const exit = await p.post(`/workflows/${id}/steps`, { type: 'EXIT', config: {} });
      expect((await p.post(`/workflows/${id}/transitions`, { fromStepId: send.body.id, toStepId: exit.body.id })).status).toBe(201);
      expect((await p.patch(`/workflows/${id}`, { enabled: true })).status).toBe(200);

      for (const email of ['blocked@example.com', 'dave@blocked.example']) {
        expect((await p.post('/contacts', { email })).status).toBe(201);
        const started = await p.post(`/workflows/${id}/executions`, { email });
        expect(started.status).toBe(201);
        const execution = await eventually(async () => {
          const [row] = await stack.api.dataSource.query('SELECT status, context FROM workflow_executions WHERE id = $1', [started.body.id]);
          return row && !['RUNNING', 'WAITING'].includes(row.status) ? row : undefined;
        }, 'the execution to end');
        expect(execution.status).toBe('EXITED');
        expect(execution.context.skipped).toEqual([{ stepId: send.body.id, reason: 'suppressed', at: expect.any(String) }]);
        const emails = await stack.api.dataSource.query('SELECT 1 FROM emails WHERE project_id = $1 AND to_email = $2', [p.id, email]);
        expect(emails).toEqual([]);
      }
      expect(projectRecipients()).toEqual([]);
    });
  });
});
