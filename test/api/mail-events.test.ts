import { randomUUID } from 'node:crypto';
import { MailEventsService } from '../../src/mail-events/mail-events-service';
import { parseSnsMessage } from '../../src/mail-events/sns-message';
import { ContactsService } from '../../src/contacts/contacts-service';
import { Client, startApi, uniqueEmail, type TestApi } from '../support/api';
import { sesEvent, snsNotification, TOPIC } from '../support/mail-events';

const SECRET = 'mail-events-test-secret';

describe('POST /webhooks/mail-events', () => {
  let api: TestApi;
  let client: Client;
  let projectId: string;

  beforeAll(async () => {
    api = await startApi({ env: { MAIL_EVENTS_SECRET: SECRET } });
    client = new Client(api.url);
    [{ id: projectId }] = await api.dataSource.query(`INSERT INTO projects (name) VALUES ('Mail events') RETURNING id`);
    await api.dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [projectId, `${projectId}.example.com`]);
  });
  afterAll(() => api.close());

  /** A subscribed contact and an email to it that SES accepted with a fresh message id. */
  async function sentEmail(status = 'SENT') {
    const [contact] = await api.dataSource.query(
      `INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, true) RETURNING id, email`,
      [projectId, uniqueEmail('recipient')],
    );
    const messageId = `0100018c-${randomUUID()}-000000`;
    const [email] = await api.dataSource.query(
      `INSERT INTO emails (project_id, contact_id, source, type, to_email, "from", subject, body, status, message_id, sent_at)
       VALUES ($1, $2, 'SEND', 'MARKETING', $3, $4, 'Hello', '<p>Hi</p>', $5, $6, now()) RETURNING id`,
      [projectId, contact.id, contact.email, `news@${projectId}.example.com`, status, messageId],
    );
    return { emailId: email.id as string, contactId: contact.id as string, address: contact.email as string, messageId };
  }

  const post = (body: string, secret: string | null = SECRET, contentType = 'text/plain; charset=UTF-8') =>
    client.call('POST', `/webhooks/mail-events${secret === null ? '' : `?secret=${encodeURIComponent(secret)}`}`, {
      rawBody: body,
      headers: { 'content-type': contentType },
    });

  const emailRow = async (emailId: string) => (await api.dataSource.query('SELECT * FROM emails WHERE id = $1', [emailId]))[0];
  const eventsOf = (contactId: string) =>
    api.dataSource.query('SELECT name, source, data FROM events WHERE contact_id = $1 ORDER BY created_at, name', [contactId]);
  const suppression = async (address: string) =>
    (await api.dataSource.query('SELECT reason FROM suppressions WHERE project_id = $1 AND value = $2', [projectId, address]))[0];
  const subscribed = async (contactId: string) =>
    (await api.dataSource.query('SELECT subscribed FROM contacts WHERE id = $1', [contactId]))[0].subscribed;

  it('answers 401 to a wrong or missing secret and records nothing', async () => {
    const { emailId, contactId, messageId } = await sentEmail();
    const snsId = randomUUID();
    const body = snsNotification(sesEvent('Delivery', messageId), snsId);
    for (const secret of ['wrong-secret', '', null]) {
      const answer = await post(body, secret);
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    expect(await api.dataSource.query('SELECT 1 FROM mail_event_receipts WHERE notification_id = $1', [snsId])).toHaveLength(0);
    expect((await emailRow(emailId)).status).toBe('SENT');
    expect(await eventsOf(contactId)).toEqual([]);
  });

  it('marks a delivery DELIVERED with its time and stores email.delivered on the contact', async () => {
    const { emailId, contactId, messageId } = await sentEmail();
    const answer = await post(snsNotification(sesEvent('Delivery', messageId, {}, '2025-01-01T12:00:05.000Z')));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, outcome: 'applied' });
    const row = await emailRow(emailId);
    expect(row.status).toBe('DELIVERED');
    expect(row.delivered_at.toISOString()).toBe('2025-01-01T12:00:05.000Z');
    expect(await eventsOf(contactId)).toEqual([
      { name: 'email.delivered', source: 'SYSTEM', data: expect.objectContaining({ emailId, messageId, timestamp: '2025-01-01T12:00:05.000Z' }) },
    ]);
  });

  it('accepts the envelope as application/json too', async () => {
    const { emailId, messageId } = await sentEmail();
    const answer = await post(snsNotification(sesEvent('Delivery', messageId)), SECRET, 'application/json');
    expect(answer.status).toBe(200);
    expect((await emailRow(emailId)).status).toBe('DELIVERED');
  });

  it('counts the same notification (same SNS MessageId) once', async () => {
    const { contactId, messageId } = await sentEmail();
    const body = snsNotification(sesEvent('Open', messageId));
    expect((await post(body)).body.outcome).toBe('applied');
    expect((await post(body)).body).toEqual({ success: true, outcome: 'duplicate' });
    expect(await eventsOf(contactId)).toEqual([expect.objectContaining({ name: 'email.opened' })]);
  });

  it('keeps the furthest status but fills the time of an event that arrives late', async () => {
    const { emailId, contactId, messageId } = await sentEmail();
    await post(snsNotification(sesEvent('Open', messageId, {}, '2025-01-01T12:05:00.000Z')));
    await post(snsNotification(sesEvent('Delivery', messageId, {}, '2025-01-01T12:00:05.000Z')));
    const row = await emailRow(emailId);
    expect(row.status).toBe('OPENED');
    expect(row.opened_at.toISOString()).toBe('2025-01-01T12:05:00.000Z');
    expect(row.delivered_at.toISOString()).toBe('2025-01-01T12:00:05.000Z');
    expect((await eventsOf(contactId)).map((event: { name: string }) => event.name).sort()).toEqual(['email.delivered', 'email.opened']);
  });

  it('records the link of a click', async () => {
    const { emailId, contactId, messageId } = await sentEmail();
    await post(snsNotification(sesEvent('Click', messageId, { link: 'https://example.com/pricing', ipAddress: '192.0.2.1' })));
    expect((await emailRow(emailId)).status).toBe('CLICKED');
    const [event] = await eventsOf(contactId);
    expect(event).toEqual({ name: 'email.clicked', source: 'SYSTEM', data: expect.objectContaining({ link: 'https://example.com/pricing' }) });
    expect(event.data).not.toHaveProperty('ipAddress');
  });

  it('bounces a permanent bounce: BOUNCED, address suppressed, contact unsubscribed with contact.unsubscribed', async () => {
    const { emailId, contactId, address, messageId } = await sentEmail();
    const bounce = { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: address, diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] };
    expect((await post(snsNotification(sesEvent('Bounce', messageId, bounce)))).status).toBe(200);
    const row = await emailRow(emailId);
    expect(row.status).toBe('BOUNCED');
    expect(row.bounced_at).not.toBeNull();
    expect(await suppression(address)).toEqual({ reason: 'BOUNCE' });
    expect(await subscribed(contactId)).toBe(false);
    const events = await eventsOf(contactId);
    expect(events).toEqual(
      expect.arrayContaining([
        { name: 'email.bounced', source: 'SYSTEM', data: expect.objectContaining({ emailId, bounceType: 'Permanent', bounceSubType: 'General', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }) },
        expect.objectContaining({ name: 'contact.unsubscribed', source: 'SYSTEM' }),
      ]),
    );
    expect(events).toHaveLength(2);
  });

  it('records a complaint: COMPLAINED, address suppressed, contact unsubscribed', async () => {
    const { emailId, contactId, address, messageId } = await sentEmail('DELIVERED');
    await post(snsNotification(sesEvent('Complaint', messageId, { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: address }] })));
    const row = await emailRow(emailId);
    expect(row.status).toBe('COMPLAINED');
    expect(row.complained_at).not.toBeNull();
    expect(await suppression(address)).toEqual({ reason: 'COMPLAINT' });
    expect(await subscribed(contactId)).toBe(false);
    expect((await eventsOf(contactId)).map((event: { name: string }) => event.name).sort()).toEqual(['contact.unsubscribed', 'email.complained']);
  });

  it('stores a transient bounce as an event only: no status change, no suppression', async () => {
    const { emailId, contactId, address, messageId } = await sentEmail();
    await post(snsNotification(sesEvent('Bounce', messageId, { bounceType: 'Transient', bounceSubType: 'MailboxFull' })));
    const row = await emailRow(emailId);
    expect(row.status).toBe('SENT');
    expect(row.bounced_at).toBeNull();
    expect(await suppression(address)).toBeUndefined();
    expect(await subscribed(contactId)).toBe(true);
    expect(await eventsOf(contactId)).toEqual([expect.objectContaining({ name: 'email.bounced', data: expect.objectContaining({ bounceType: 'Transient' }) })]);
  });

  it('fails a rejected email with email.failed, and ignores a delivery delay', async () => {
    const rejected = await sentEmail();
    await post(snsNotification(sesEvent('Reject', rejected.messageId, { reason: 'Bad content' })));
    const row = await emailRow(rejected.emailId);
    expect(row.status).toBe('FAILED');
    expect(row.error).toContain('Bad content');
    expect(await eventsOf(rejected.contactId)).toEqual([expect.objectContaining({ name: 'email.failed' })]);

    const delayed = await sentEmail();
    expect((await post(snsNotification(sesEvent('DeliveryDelay', delayed.messageId, { delayType: 'MailboxFull' })))).status).toBe(200);
    expect((await emailRow(delayed.emailId)).status).toBe('SENT');
    expect(await eventsOf(delayed.contactId)).toEqual([]);
  });

  it('keeps an event for an unknown message id in the backlog, with its receipt, and acknowledges it', async () => {
    const snsId = randomUUID();
    const answer = await post(snsNotification(sesEvent('Delivery', 'no-such-message-id'), snsId));
    expect(answer.status).toBe(200);
    expect(answer.body.outcome).toBe('kept');
    expect(await api.dataSource.query('SELECT 1 FROM mail_event_receipts WHERE notification_id = $1', [snsId])).toHaveLength(1);
    expect(await api.dataSource.query('SELECT message_id, email_id, event_type FROM mail_event_backlog WHERE notification_id = $1', [snsId])).toEqual([
      { message_id: 'no-such-message-id', email_id: null, event_type: 'Delivery' },
    ]);
  });

  it('matches an event by its emailId tag first, by its SES message id second', async () => {
    const tagged = await sentEmail();
    const other = await sentEmail();
    const record = sesEvent('Delivery', other.messageId);
    expect((await post(snsNotification({ ...record, mail: { ...record.mail, tags: { emailId: [tagged.emailId] } } }))).body.outcome).toBe('applied');
    expect((await emailRow(tagged.emailId)).status).toBe('DELIVERED');
    expect((await emailRow(other.emailId)).status).toBe('SENT');
  });

  it('ignores an emailId tag that is not a UUID, matching by message id', async () => {
    const hostile = ["x' OR '1'='1", '', 42, null, { id: 'x' }, '00000000-0000-0000-0000-00000000000g', 'a'.repeat(10_000), 'nul\u0000'];
    for (const value of hostile) {
      const { emailId, messageId } = await sentEmail();
      const record = sesEvent('Delivery', messageId);
      for (const tags of [{ emailId: [value] }, { emailId: value }, value]) {
        const answer = await post(snsNotification({ ...record, mail: { ...record.mail, tags } }));
        expect({ tags, status: answer.status, outcome: answer.body.outcome }).toEqual({ tags, status: 200, outcome: 'applied' });
      }
      expect((await emailRow(emailId)).status).toBe('DELIVERED');
    }
  });

  it('answers 400 to a body that is not an SNS message or carries no SES event', async () => {
    expect((await post('not json')).status).toBe(400);
    expect((await post(JSON.stringify({ Type: 'Something', MessageId: 'x', Message: '' }))).status).toBe(400);
    expect((await post(snsNotification({ hello: 'world' }))).status).toBe(400);
    expect((await post(snsNotification(sesEvent('Delivery', 'message-id-with-nul\u0000')))).status).toBe(400);
  });

  it('refuses to confirm a subscription whose SubscribeURL is not on an SNS host', async () => {
    const confirmation = {
      Type: 'SubscriptionConfirmation',
      MessageId: randomUUID(),
      TopicArn: TOPIC,
      Token: 'token',
      Message: 'You have chosen to subscribe to the topic.',
      SubscribeURL: `${api.url}/confirm-me`,
      Timestamp: new Date().toISOString(),
    };
    const answer = await post(JSON.stringify(confirmation));
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('SubscribeURL');
  });

  it('confirms a subscription by visiting its SNS SubscribeURL', async () => {
    const visited: string[] = [];
    const service = new MailEventsService(new ContactsService(api.dataSource, api.dispatcher), undefined, async (url) => {
      visited.push(url);
    });
    const subscribeUrl = 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=token';
    const message = parseSnsMessage(
      JSON.stringify({ Type: 'SubscriptionConfirmation', MessageId: randomUUID(), TopicArn: TOPIC, Token: 'token', Message: 'Confirm', SubscribeURL: subscribeUrl }),
    );
    await expect(service.receive(message)).resolves.toEqual({ outcome: 'confirmed' });
    expect(visited).toEqual([subscribeUrl]);
  });
});

describe('POST /webhooks/mail-events with MAIL_EVENTS_VERIFY_SNS=true', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ env: { MAIL_EVENTS_SECRET: SECRET, MAIL_EVENTS_VERIFY_SNS: 'true' } });
  });
  afterAll(() => api.close());

  it('refuses a message whose signing certificate is not on an SNS host, recording nothing', async () => {
    const snsId = randomUUID();
    const body = JSON.parse(snsNotification(sesEvent('Delivery', 'any-message-id'), snsId));
    body.SigningCertURL = 'https://certificates.example.com/cert.pem';
    const answer = await new Client(api.url).call('POST', `/webhooks/mail-events?secret=${SECRET}`, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('INVALID_SIGNATURE');
    expect(await api.dataSource.query('SELECT 1 FROM mail_event_receipts WHERE notification_id = $1', [snsId])).toHaveLength(0);
  });
});
