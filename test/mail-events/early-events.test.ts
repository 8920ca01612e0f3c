import { randomUUID } from 'node:crypto';
import { projectWithVerifiedDomain } from '../support/api';
import { MailEventsPoster, permanentBounce, sesEventAbout } from '../support/mail-events';
import { emailTag } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { until } from '../support/wait';

const SECRET = 'early-mail-events-test-secret';

describe('a mail event posted the instant SES accepts the message', () => {
  let stack: SesStack;
  let events: MailEventsPoster;

  beforeAll(async () => {
    stack = await startSesStack({ TEMPORAL_TASK_QUEUE: 'early-mail-events-test', MAIL_EVENTS_SECRET: SECRET });
    events = new MailEventsPoster(stack.client, SECRET);
  });
  afterAll(() => stack?.close());
  afterEach(() => {
    stack.ses.onAccept = undefined;
  });

  const query = (sql: string, params: unknown[] = []) => stack.api.dataSource.query(sql, params);

  /**
   * Has SES post a Delivery and a permanent Bounce of every message it accepts, each twice
   * (the same SNS notification delivered again), before it answers SendEmail; answers the
   * webhook's outcomes as they come.
   */
  function deliverAndBounceOnAccept(): string[] {
    const outcomes: string[] = [];
    stack.ses.onAccept = async (email) => {
      const address = email.request.Destination!.ToAddresses![0];
      for (const record of [sesEventAbout(email, 'Delivery'), sesEventAbout(email, 'Bounce', permanentBounce(address))]) {
        const notificationId = randomUUID();
        for (let copy = 0; copy < 2; copy++) outcomes.push((await events.post(record, notificationId)).body.outcome);
      }
    };
    return outcomes;
  }

  /** A new project with a verified domain and `count` subscribed contacts. */
  async function project(count: number) {
    const { project, key, domain } = await projectWithVerifiedDomain(stack.api);
    const addresses: string[] = (
      await query(
        `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'early-' || i || '-' || $2 || '@example.com', true FROM generate_series(1, $3) AS i RETURNING email`,
        [project.id, randomUUID().slice(0, 8), count],
      )
    ).map((row: { email: string }) => row.email);
    return { id: project.id as string, key, from: `news@${domain}`, addresses };
  }

  /** Waits until the project's `count` emails are BOUNCED, and answers their rows. */
  const bouncedEmails = (projectId: string, count: number) =>
    until(
      (): Promise<{ id: string; status: string; message_id: string; contact_id: string }[]> =>
        query('SELECT id, status, message_id, delivered_at, bounced_at, contact_id FROM emails WHERE project_id = $1', [projectId]),
      (rows) => rows.length === count && rows.every((row) => row.status === 'BOUNCED'),
      'the emails to be BOUNCED',
    );

  /** The suppression reason, subscription and event names of each address, in the project. */
  async function recipients(projectId: string, addresses: string[]) {
    return Promise.all(
      addresses.map(async (address) => {
        const [suppression] = await query('SELECT reason FROM suppressions WHERE project_id = $1 AND value = $2', [projectId, address]);
        const [contact] = await query('SELECT id, subscribed FROM contacts WHERE project_id = $1 AND email = $2', [projectId, address]);
        const names: { name: string }[] = await query('SELECT name FROM events WHERE contact_id = $1 ORDER BY name', [contact.id]);
        return { address, suppression: suppression?.reason, subscribed: contact.subscribed, events: names.map((event) => event.name) };
      }),
    );
  }

  const bounced = (address: string) => ({
    address,
    suppression: 'BOUNCE',
    subscribed: false,
    events: ['contact.unsubscribed', 'email.bounced', 'email.delivered', 'email.sent'],
  });

  it('is applied to a /v1/send email once its send is recorded: BOUNCED, suppressed, unsubscribed, email.* events, counted once', async () => {
    const p = await project(1);
    const outcomes = deliverAndBounceOnAccept();
    const answer = await stack.client.post('/v1/send', { to: p.addresses[0], from: p.from, subject: 'Hi', body: '<p>Hi</p>' }, { key: p.key });
    expect(answer.status).toBe(200);
    const [{ email: emailId }] = answer.body.data.emails;

    const [row] = await bouncedEmails(p.id, 1);
    expect(outcomes).toEqual(['kept', 'duplicate', 'kept', 'duplicate']);
    const captured = stack.ses.emails.filter((email) => emailTag(email, 'emailId') === emailId);
    expect(captured).toHaveLength(1);
    expect(row).toMatchObject({ id: emailId, message_id: captured[0].messageId, delivered_at: expect.any(Date), bounced_at: expect.any(Date) });
    expect(await recipients(p.id, p.addresses)).toEqual([bounced(p.addresses[0])]);
    const [bounce] = await query(`SELECT data FROM events WHERE contact_id = $1 AND name = 'email.bounced'`, [row.contact_id]);
    expect(bounce.data).toMatchObject({ emailId, messageId: captured[0].messageId, bounceType: 'Permanent' });
    expect(await query('SELECT 1 FROM mail_event_backlog WHERE email_id = $1', [emailId])).toHaveLength(0);
  });

  it('is applied to campaign emails once their sends are recorded, moving the counters once per email', async () => {
    const p = await project(3);
    const outcomes = deliverAndBounceOnAccept();
    const created = await stack.client.post('/campaigns', { name: 'Early', subject: 'News', body: '<p>News</p>', from: p.from, audienceType: 'ALL' }, { key: p.key });
    expect(created.status).toBe(201);
    const campaignId = created.body.data.id;
    expect((await stack.client.post(`/campaigns/${campaignId}/send`, undefined, { key: p.key })).status).toBe(200);

    await bouncedEmails(p.id, 3);
    expect(outcomes.filter((outcome) => outcome === 'kept')).toHaveLength(6);
    expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(6);
    const campaign = await until(
      async () => (await query('SELECT * FROM campaigns WHERE id = $1', [campaignId]))[0],
      (row) => row.status === 'SENT',
      'the campaign to be SENT',
    );
    expect(campaign).toMatchObject({ sent_count: 3, delivered_count: 3, bounced_count: 3, opened_count: 0, complained_count: 0 });
    expect(await recipients(p.id, p.addresses)).toEqual(p.addresses.map(bounced));
  });

  it("has the project's reputation checked when such a bounce is applied: it is suspended at 10% bounces", async () => {
    const p = await project(1);
    await query(
      `INSERT INTO emails (project_id, source, type, to_email, "from", subject, body, status, message_id, sent_at, bounced_at)
       SELECT $1, 'SEND', 'TRANSACTIONAL', 'earlier-' || i || '@example.com', $2, 'Hi', '<p>Hi</p>', CASE WHEN i <= 9 THEN 'BOUNCED' ELSE 'SENT' END,
              $3 || '-' || i, now(), CASE WHEN i <= 9 THEN now() END
         FROM generate_series(1, 99) AS i`,
      [p.id, p.from, randomUUID()],
    );
    deliverAndBounceOnAccept();
    expect((await stack.client.post('/v1/send', { to: p.addresses[0], from: p.from, subject: 'Hi', body: '<p>Hi</p>' }, { key: p.key })).status).toBe(200);

    const [suspension] = await until(
      () => query('SELECT sent, bounced FROM project_suspensions WHERE project_id = $1', [p.id]),
      (rows: unknown[]) => rows.length > 0,
      'the project to be suspended',
    );
    expect(suspension).toEqual({ sent: 100, bounced: 10 });
    expect((await query('SELECT disabled FROM projects WHERE id = $1', [p.id]))[0].disabled).toBe(true);
  });
});
