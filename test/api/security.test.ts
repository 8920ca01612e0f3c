import { randomUUID } from 'node:crypto';
import { Client, markEmailVerified, projectWithVerifiedDomain, signupWithProject, uniqueEmail } from '../support/api';
import { MailEventsPoster } from '../support/mail-events';
import { emailTag } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { eventually } from '../support/wait';

const SECRET = 'security-test-mail-events-secret';
const TASK_QUEUE = 'security-test';
const OPERATOR = `operator-${randomUUID()}@herald.test`;

describe('sender reputation: rates, automatic suspension and lifting', () => {
  let stack: SesStack;
  let events: MailEventsPoster;

  beforeAll(async () => {
    stack = await startSesStack({ TEMPORAL_TASK_QUEUE: TASK_QUEUE, MAIL_EVENTS_SECRET: SECRET, ADMIN_EMAILS: `root@herald.test, ${OPERATOR}` });
    events = new MailEventsPoster(stack.client, SECRET);
  });
  afterAll(() => stack.close());

  const query = (sql: string, params: unknown[] = []) => stack.api.dataSource.query(sql, params);

  /** A new project of a new owner, with a verified domain. */
  async function project() {
    const owner = await projectWithVerifiedDomain(stack.api);
    const { key, domain } = owner;
    const { id } = owner.project;
    return {
      id,
      key,
      owner,
      from: `hello@${domain}`,
      /** `count` emails the project sent just now, each with its SES message id; answers the message ids. */
      async sent(count: number): Promise<string[]> {
        const rows: { message_id: string }[] = await query(
          `INSERT INTO emails (project_id, source, type, to_email, "from", subject, body, status, message_id, sent_at)
           SELECT $1, 'SEND', 'TRANSACTIONAL', 'r' || i || '-' || $2 || '@example.com', $3, 'Hi', '<p>Hi</p>', 'SENT', $2 || '-' || i, now()
             FROM generate_series(1, $4) AS i
           RETURNING message_id`,
          [id, randomUUID(), `hello@${domain}`, count],
        );
        return rows.map((row) => row.message_id);
      },
      security: (path = `/users/@me/projects/${id}/security`) => owner.client.get(path),
      suspensions: (): Promise<{ reason: string; sent: number; bounced: number; complained: number; lifted_at: Date | null; lifted_by: string | null }[]> =>
        query('SELECT * FROM project_suspensions WHERE project_id = $1 ORDER BY created_at', [id]),
      disabled: async (): Promise<boolean> => (await query('SELECT disabled FROM projects WHERE id = $1', [id]))[0].disabled,
      send: () => stack.client.post('/v1/send', { to: uniqueEmail('after'), from: `hello@${domain}`, subject: 'Hi', body: '<p>Hi</p>' }, { key }),
      /** Sends one email through `/v1/send` and waits until it went out through SES. */
      async sendOne(): Promise<void> {
        const answer = await this.send();
        expect(answer.status).toBe(200);
        const [{ email: emailId }] = answer.body.data.emails;
        await eventually(async () => (await query(`SELECT 1 FROM emails WHERE id = $1 AND status = 'SENT'`, [emailId])).length > 0, 'the email to be sent');
        expect(stack.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId)).toHaveLength(1);
      },
    };
  }

  async function each(messageIds: string[], post: (messageId: string) => Promise<{ status: number }>) {
    for (const messageId of messageIds) expect((await post(messageId)).status).toBe(200);
  }

  /** A project suspended by 10 bounces of 100 emails; answers it with the message ids. */
  async function suspendedProject() {
    const p = await project();
    const messageIds = await p.sent(100);
    await each(messageIds.slice(0, 10), events.bounce);
    expect(await p.disabled()).toBe(true);
    return { p, messageIds };
  }

  it('warns from 5% permanent bounces (transient ones do not count) and suspends at 10% of the emails sent', async () => {
    const p = await project();
    const messageIds = await p.sent(100);
    await each(messageIds.slice(0, 4), events.bounce);
    await each(messageIds.slice(50, 60), events.softBounce);
    expect((await p.security()).body).toMatchObject({ status: 'OK', disabled: false, sent: 100, bounced: 4, bounceRate: 0.04, suspensions: [] });

    await each(messageIds.slice(4, 9), events.bounce);
    const warned = await p.security();
    expect(warned.status).toBe(200);
    expect(warned.body).toEqual({
      status: 'WARNING',
      disabled: false,
      disabledReason: null,
      window: { days: 7, since: expect.any(String) },
      sent: 100,
      bounced: 9,
      complained: 0,
      bounceRate: 0.09,
      complaintRate: 0,
      thresholds: { minimumSent: 100, bounceRate: { warning: 0.05, suspend: 0.1 }, complaintRate: { warning: 0.001, suspend: 0.005 } },
      suspensions: [],
    });
    const since = Date.parse(warned.body.window.since);
    expect(Math.abs(Date.now() - 7 * 24 * 3600_000 - since)).toBeLessThan(60_000);
    expect(await p.disabled()).toBe(false);
    await p.sendOne();

    await each([messageIds[9]], events.bounce);
    expect((await p.security()).body).toMatchObject({ status: 'WARNING', sent: 101, bounced: 10 });
    expect(await p.disabled()).toBe(false);
    await each([messageIds[10]], events.bounce);
    expect(await p.disabled()).toBe(true);
    const [suspension] = await p.suspensions();
    expect(suspension).toMatchObject({ sent: 101, bounced: 11, complained: 0, lifted_at: null });
    expect(suspension.reason).toBe('Suspended automatically: bounce rate 10.9% over the last 7 days (11 of 101 emails) is at or above 10.0%');
  });

  it('refuses the keys of a suspended project (403 PROJECT_DISABLED) and reports its recorded suspension on both paths', async () => {
    const { p } = await suspendedProject();
    const refused = await p.send();
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PROJECT_DISABLED');
    expect((await stack.client.get('/contacts', { key: p.key })).status).toBe(403);

    const [suspension] = await p.suspensions();
    expect(suspension).toMatchObject({ sent: 100, bounced: 10, complained: 0, bounce_rate: 0.1, lifted_at: null });
    expect(suspension.reason).toBe('Suspended automatically: bounce rate 10.0% over the last 7 days (10 of 100 emails) is at or above 10.0%');
    for (const path of [`/users/@me/projects/${p.id}/security`, `/projects/${p.id}/security`]) {
      const state = await p.security(path);
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ status: 'SUSPENDED', disabled: true, disabledReason: suspension.reason, sent: 100, bounced: 10, bounceRate: 0.1 });
      expect(state.body.suspensions).toEqual([
        {
          id: expect.any(String),
          reason: suspension.reason,
          sent: 100,
          bounced: 10,
          complained: 0,
          bounceRate: 0.1,
          complaintRate: 0,
          createdAt: expect.any(String),
          liftedAt: null,
          liftedBy: null,
        },
      ]);
    }
    const listed = await p.owner.client.get('/users/@me/projects');
    expect(listed.body.find((project: { id: string }) => project.id === p.id)).toMatchObject({ disabled: true, disabledReason: suspension.reason });
  });

  it('warns from 0.1% complaints and suspends at 0.5%', async () => {
    const p = await project();
    const messageIds = await p.sent(400);
    await each(messageIds.slice(0, 1), events.complaint);
    expect((await p.security()).body).toMatchObject({ status: 'WARNING', complained: 1, complaintRate: 0.0025 });
    expect(await p.disabled()).toBe(false);

    await each(messageIds.slice(1, 2), events.complaint);
    expect(await p.disabled()).toBe(true);
    const [suspension] = await p.suspensions();
    expect(suspension).toMatchObject({ sent: 400, bounced: 0, complained: 2 });
    expect(suspension.reason).toBe('Suspended automatically: complaint rate 0.50% over the last 7 days (2 of 400 emails) is at or above 0.50%');
    expect((await p.send()).body.error.code).toBe('PROJECT_DISABLED');
    expect((await p.security(`/projects/${p.id}/security`)).body).toMatchObject({ status: 'SUSPENDED', complaintRate: 0.005 });
  });

  it('never suspends a project that sent fewer than 100 emails in the window', async () => {
    const p = await project();
    const messageIds = await p.sent(99);
    await each(messageIds.slice(0, 60), events.bounce);
    await each(messageIds.slice(60, 70), events.complaint);
    expect(await p.disabled()).toBe(false);
    expect(await p.suspensions()).toEqual([]);
    expect((await p.security()).body).toMatchObject({ status: 'OK', sent: 99, bounced: 60, complained: 10 });
  });

  it('counts only emails sent within the last 7 days', async () => {
    const p = await project();
    const old = await p.sent(100);
    await query(`UPDATE emails SET sent_at = now() - interval '8 days' WHERE project_id = $1`, [p.id]);
    await p.sent(100);
    await each(old.slice(0, 20), events.bounce);
    expect(await p.disabled()).toBe(false);
    expect((await p.security()).body).toMatchObject({ status: 'OK', sent: 100, bounced: 0 });
  });

  it('suspends once when bounces arrive concurrently', async () => {
    const p = await project();
    const messageIds = await p.sent(100);
    const answers = await Promise.all(messageIds.slice(0, 30).map(events.bounce));
    expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
    expect(await p.disabled()).toBe(true);
    const suspensions = await p.suspensions();
    expect(suspensions).toHaveLength(1);
    expect(suspensions[0].bounced).toBeGreaterThanOrEqual(10);
  });

  it('fails an email still queued when the project is suspended, sending nothing', async () => {
    const { p } = await suspendedProject();
    const [{ id: emailId }] = await query(
      `INSERT INTO emails (project_id, source, type, to_email, "from", subject, body, status)
       VALUES ($1, 'SEND', 'TRANSACTIONAL', $2, $3, 'Queued before', '<p>Hi</p>', 'QUEUED') RETURNING id`,
      [p.id, uniqueEmail('queued'), p.from],
    );
    const outcome = await stack.temporal.client.workflow.execute('deliverEmail', { taskQueue: TASK_QUEUE, workflowId: `email/${emailId}`, args: [emailId] });
    expect(outcome).toBe('PROJECT_DISABLED');
    const [row] = await query('SELECT status, error, sent_at FROM emails WHERE id = $1', [emailId]);
    expect(row).toEqual({ status: 'FAILED', error: 'Not sent: the project is suspended', sent_at: null });
    expect(stack.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId)).toEqual([]);
  });

  it('lets only an operator lift a suspension: members, OWNER included, get 403 naming who can; an ADMIN_EMAILS account lifts it', async () => {
    const { p, messageIds } = await suspendedProject();
    const member = new Client(stack.api.url);
    const memberEmail = uniqueEmail('member');
    await member.post('/auth/signup', { email: memberEmail, password: 'correct horse battery' });
    await markEmailVerified(stack.api, memberEmail);
    expect((await p.owner.client.post(`/projects/${p.id}/members`, { email: memberEmail, role: 'MEMBER' })).status).toBe(201);

    for (const client of [member, p.owner.client]) {
      const refused = await client.post(`/users/@me/projects/${p.id}/security/lift`);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
      expect(refused.body.error.message).toContain('ADMIN_EMAILS');
      expect(refused.body.error.message).toContain(`npm run herald -- lift-suspension ${p.id}`);
    }
    expect(await p.disabled()).toBe(true);
    expect((await member.get(`/projects/${p.id}/security`)).body.status).toBe('SUSPENDED');

    // The operator's address counts only once verified: until then it is a stranger to the project.
    const operator = new Client(stack.api.url);
    const { body: operatorUser } = await operator.post('/auth/signup', { email: OPERATOR.toUpperCase(), password: 'correct horse battery' });
    expect((await operator.post(`/users/@me/projects/${p.id}/security/lift`)).status).toBe(404);
    await markEmailVerified(stack.api, OPERATOR);

    const lifted = await operator.post(`/users/@me/projects/${p.id}/security/lift`);
    expect(lifted.status).toBe(200);
    expect(lifted.body).toMatchObject({ status: 'OK', disabled: false, disabledReason: null, sent: 0, bounced: 0 });
    expect(lifted.body.suspensions).toEqual([expect.objectContaining({ liftedAt: expect.any(String), liftedBy: operatorUser.id })]);
    const [suspension] = await p.suspensions();
    expect(suspension.lifted_at).toBeInstanceOf(Date);
    expect(suspension.lifted_by).toBe(operatorUser.id);
    const [{ reputation_since: since }] = await query('SELECT reputation_since FROM projects WHERE id = $1', [p.id]);
    expect(lifted.body.window.since).toBe(since.toISOString());

    const again = await operator.post(`/users/@me/projects/${p.id}/security/lift`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('NOT_SUSPENDED');
    for (const projectId of [randomUUID(), 'nope']) {
      expect((await operator.post(`/users/@me/projects/${projectId}/security/lift`)).status).toBe(404);
    }

    await p.sendOne();

    await each(messageIds.slice(10, 30), events.bounce);
    expect(await p.disabled()).toBe(false);
    expect(await p.suspensions()).toHaveLength(1);
    expect((await p.security()).body).toMatchObject({ status: 'OK', sent: 1, bounced: 0 });
  });

  it('answers 404 to a non-member and 401 without a session', async () => {
    const { p } = await suspendedProject();
    const stranger = await signupWithProject(stack.api);
    for (const path of [`/users/@me/projects/${p.id}/security`, `/projects/${p.id}/security`, `/projects/${randomUUID()}/security`, '/projects/nope/security']) {
      const answer = await stranger.client.get(path);
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await stranger.client.post(`/users/@me/projects/${p.id}/security/lift`)).status).toBe(404);
    expect(await p.disabled()).toBe(true);
    expect((await new Client(stack.api.url).get(`/projects/${p.id}/security`)).status).toBe(401);
  });
});
