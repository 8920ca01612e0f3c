import { randomUUID } from 'node:crypto';
import { PermanentMailError } from '../../src/mailer/types';
import { Client, projectWithVerifiedDomain, startApi, type TestApi } from '../support/api';
import { MailEventFixture, type QueuedEmail } from '../support/mail-event-fixture';
import { permanentBounce, sesEvent } from '../support/mail-events';
import { addEndpoint, recordedEvents, recordedOf } from './sources-support';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/webhook-events';

const EMAIL_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith('email.'));

describe('email.* webhook events from deliveries and mail events', () => {
  let fixture: MailEventFixture;

  beforeAll(async () => {
    fixture = await MailEventFixture.start();
  });
  afterAll(() => fixture.close());

  /** A queued email of a new project whose endpoint subscribes to `types`. */
  async function hookedEmail(options: { campaign?: boolean; types?: string[] } = {}): Promise<QueuedEmail> {
    const email = await fixture.queuedEmail(options);
    await addEndpoint(fixture.dataSource, email.projectId, options.types ?? [...EMAIL_TYPES, 'contact.unsubscribed']);
    return email;
  }

  const messageIdOf = async (email: QueuedEmail): Promise<string> => (await fixture.query('SELECT message_id FROM emails WHERE id = $1', [email.emailId]))[0].message_id;
  const about = (email: QueuedEmail) => ({ emailId: email.emailId, contactId: email.contactId, to: email.address, subject: 'News' });

  it('records email.sent when the send is recorded, with the email, its campaign and the message id', async () => {
    const email = await hookedEmail({ campaign: true });
    expect(await fixture.delivery.deliver(email.emailId)).toBe('SENT');
    const messageId = await messageIdOf(email);
    expect(await recordedEvents(fixture.dataSource, email.projectId)).toEqual([
      { type: 'email.sent', data: { ...about(email), campaignId: email.campaignId, messageId }, key: `email:${email.emailId}:email.sent` },
    ]);
  });

  it('records each mail event once, with its provider detail, and a delivery delay without moving the status', async () => {
    const email = await hookedEmail();
    await fixture.delivery.deliver(email.emailId);
    const messageId = await messageIdOf(email);
    const delayed = randomUUID();
    const section = { delayType: 'MailboxFull', expirationTime: '2025-01-02T12:00:00.000Z', delayedRecipients: [{ emailAddress: email.address, diagnosticCode: 'smtp; 452 4.2.2 mailbox full' }] };
    expect((await fixture.receive(sesEvent('DeliveryDelay', messageId, section, '2025-01-01T12:00:01.000Z'), delayed)).outcome).toBe('applied');
    expect((await fixture.outcome(email)).row.status).toBe('SENT');
    await fixture.receive(sesEvent('Delivery', messageId, {}, '2025-01-01T12:00:02.000Z'));
    await fixture.receive(sesEvent('Open', messageId, {}, '2025-01-01T12:00:03.000Z'));
    const clicked = randomUUID();
    await fixture.receive(sesEvent('Click', messageId, { link: 'https://example.com/offer' }, '2025-01-01T12:00:04.000Z'), clicked);
    // SNS delivers at least once: the same notification again records nothing more.
    expect((await fixture.receive(sesEvent('Click', messageId, { link: 'https://example.com/offer' }, '2025-01-01T12:00:04.000Z'), clicked)).outcome).toBe('duplicate');
    expect((await fixture.receive(sesEvent('DeliveryDelay', messageId, section, '2025-01-01T12:00:01.000Z'), delayed)).outcome).toBe('duplicate');
    await fixture.receive(sesEvent('Complaint', messageId, { complaintFeedbackType: 'abuse' }, '2025-01-01T12:00:05.000Z'));
    const events = await recordedEvents(fixture.dataSource, email.projectId);
    const detail = (type: string) => events.filter((event) => event.type === type).map((event) => event.data);
    const at = (timestamp: string) => ({ ...about(email), messageId, timestamp });
    expect(detail('email.delivery_delayed')).toEqual([
      { ...at('2025-01-01T12:00:01.000Z'), delayType: 'MailboxFull', expirationTime: '2025-01-02T12:00:00.000Z', diagnosticCode: 'smtp; 452 4.2.2 mailbox full' },
    ]);
    expect(detail('email.delivered')).toEqual([at('2025-01-01T12:00:02.000Z')]);
    expect(detail('email.opened')).toEqual([at('2025-01-01T12:00:03.000Z')]);
    expect(detail('email.clicked')).toEqual([{ ...at('2025-01-01T12:00:04.000Z'), link: 'https://example.com/offer' }]);
    expect(detail('email.complained')).toEqual([{ ...at('2025-01-01T12:00:05.000Z'), complaintFeedbackType: 'abuse' }]);
    expect(detail('contact.unsubscribed')).toEqual([{ contactId: email.contactId, email: email.address, subscribed: false, data: {} }]);
    expect(events.filter((event) => event.key?.startsWith('ses:')).map((event) => event.key)).toContain(`ses:${clicked}`);
  });

  it('records a permanent bounce with its bounce type, and a rejection as email.failed with the reason', async () => {
    const bounced = await hookedEmail();
    await fixture.delivery.deliver(bounced.emailId);
    await fixture.receive(sesEvent('Bounce', await messageIdOf(bounced), permanentBounce(bounced.address)));
    expect((await recordedOf(fixture.dataSource, bounced.projectId, 'email.bounced')).map((event) => event.data)).toEqual([
      expect.objectContaining({ ...about(bounced), bounceType: 'Permanent', bounceSubType: 'General', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }),
    ]);
    const rejected = await hookedEmail();
    await fixture.delivery.deliver(rejected.emailId);
    await fixture.receive(sesEvent('Reject', await messageIdOf(rejected), { reason: 'Bad content' }));
    expect((await recordedOf(fixture.dataSource, rejected.projectId, 'email.failed')).map((event) => event.data)).toEqual([
      expect.objectContaining({ ...about(rejected), reason: 'Rejected by SES: Bad content' }),
    ]);
  });

  it('records a mail event that arrived before its send once, when the send is recorded', async () => {
    const email = await hookedEmail();
    fixture.mailer.onAccept = async (_message, messageId) => {
      expect((await fixture.receive(sesEvent('Delivery', messageId))).outcome).toBe('kept');
    };
    try {
      await fixture.delivery.deliver(email.emailId);
    } finally {
      fixture.mailer.onAccept = async () => {};
    }
    expect((await recordedEvents(fixture.dataSource, email.projectId)).map((event) => event.type).sort()).toEqual(['email.delivered', 'email.sent']);
  });

  it('records email.suppressed for an address suppressed before its send, and email.failed for a refused message', async () => {
    const suppressed = await hookedEmail();
    await fixture.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'MANUAL')`, [suppressed.projectId, suppressed.address]);
    expect(await fixture.delivery.deliver(suppressed.emailId)).toBe('SUPPRESSED');
    expect(await fixture.delivery.deliver(suppressed.emailId)).toBe('ALREADY_HANDLED');
    expect(await recordedEvents(fixture.dataSource, suppressed.projectId)).toEqual([
      { type: 'email.suppressed', data: about(suppressed), key: `email:${suppressed.emailId}:email.suppressed` },
    ]);
    const refused = await hookedEmail();
    fixture.mailer.onAccept = async () => {
      throw new PermanentMailError('Address blacklisted');
    };
    try {
      await expect(fixture.delivery.deliver(refused.emailId)).rejects.toThrow('Address blacklisted');
    } finally {
      fixture.mailer.onAccept = async () => {};
    }
    expect((await recordedEvents(fixture.dataSource, refused.projectId)).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'email.failed', data: { ...about(refused), reason: 'Address blacklisted' } },
    ]);
  });

  it('records email.failed for a scheduled email its project may no longer send at its time', async () => {
    const email = await hookedEmail();
    await fixture.query(`UPDATE emails SET status = 'SCHEDULED', scheduled_at = now() WHERE id = $1`, [email.emailId]);
    await fixture.query('INSERT INTO billing_limits (project_id, emails) VALUES ($1, 0)', [email.projectId]);
    expect(await fixture.delivery.release(email.emailId)).toBe('FAILED');
    expect((await recordedEvents(fixture.dataSource, email.projectId)).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'email.failed', data: { ...about(email), reason: expect.stringMatching(/^Not sent at its scheduled time: Billing limit exceeded/) } },
    ]);
  });

  it('records only the subscribed types, and nothing for a project without endpoints', async () => {
    const narrow = await hookedEmail({ types: ['email.bounced'] });
    const bare = await fixture.queuedEmail();
    for (const email of [narrow, bare]) {
      await fixture.delivery.deliver(email.emailId);
      await fixture.receive(sesEvent('Delivery', await messageIdOf(email)));
    }
    expect(await recordedEvents(fixture.dataSource, narrow.projectId)).toEqual([]);
    expect(await recordedEvents(fixture.dataSource, bare.projectId)).toEqual([]);
  });
});

describe('email.suppressed from /v1/send', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('records email.suppressed for a recipient on the suppression list, in the request that stored its SUPPRESSED email', async () => {
    const { project, key, domain } = await projectWithVerifiedDomain(api);
    await addEndpoint(api.dataSource, project.id, ['email.suppressed']);
    await api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'blocked@example.com', 'BOUNCE')`, [project.id]);
    const answer = await new Client(api.url).post('/v1/send', { from: `hello@${domain}`, to: 'blocked@example.com', subject: 'Receipt', body: '<p>Thanks</p>' }, { key });
    expect(answer.status).toBe(200);
    const [email] = answer.body.data.emails;
    expect(email.status).toBe('SUPPRESSED');
    expect(await recordedEvents(api.dataSource, project.id)).toEqual([
      {
        type: 'email.suppressed',
        data: { emailId: email.email, contactId: email.contact.id, to: 'blocked@example.com', subject: 'Receipt' },
        key: `email:${email.email}:email.suppressed`,
      },
    ]);
  });
});
