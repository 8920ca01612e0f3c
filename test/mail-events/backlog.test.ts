import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createHousekeepingActivities } from '../../activities/housekeeping';
import { logger } from '../../src/logger';
import { PermanentMailError } from '../../src/mailer/types';
import { MailEventFixture } from '../support/mail-event-fixture';
import { permanentBounce, sesEvent } from '../support/mail-events';

describe('mail events that arrive before their email is recorded', () => {
  let fixture: MailEventFixture;

  beforeAll(async () => {
    fixture = await MailEventFixture.start();
  });
  afterAll(() => fixture?.close());
  afterEach(() => {
    fixture.mailer.onAccept = async () => {};
    jest.restoreAllMocks();
  });

  const backlogEntry = (notificationId: string) => fixture.query('SELECT * FROM mail_event_backlog WHERE notification_id = $1', [notificationId]);

  it('keeps a notification with only a message id until the send is recorded with that id, then applies it', async () => {
    const email = await fixture.queuedEmail({ campaign: true });
    fixture.mailer.onAccept = async (_message, messageId) => {
      expect(await fixture.receive(sesEvent('Bounce', messageId, permanentBounce(email.address)))).toEqual({ outcome: 'kept' });
      expect((await fixture.outcome(email)).waitingInBacklog).toBe(0);
      expect(await fixture.query('SELECT 1 FROM mail_event_backlog WHERE message_id = $1', [messageId])).toHaveLength(1);
    };
    expect(await fixture.delivery.deliver(email.emailId)).toBe('SENT');
    const outcome = await fixture.outcome(email);
    expect(outcome).toMatchObject({
      row: { status: 'BOUNCED', hasMessageId: true, bouncedAt: expect.any(Date) },
      counters: { sent_count: 1, bounced_count: 1 },
      suppression: 'BOUNCE',
      subscribed: false,
      events: ['contact.unsubscribed', 'email.bounced', 'email.sent'],
    });
  });

  it('counts the same notification once, also when its first copy waited in the backlog', async () => {
    const email = await fixture.queuedEmail({ campaign: true });
    const notificationId = randomUUID();
    let bounce: unknown;
    fixture.mailer.onAccept = async (_message, messageId) => {
      bounce = { ...sesEvent('Bounce', messageId, permanentBounce(email.address)), mail: { messageId, tags: { emailId: [email.emailId] } } };
      expect(await fixture.receive(bounce, notificationId)).toEqual({ outcome: 'kept' });
      expect(await fixture.receive(bounce, notificationId)).toEqual({ outcome: 'duplicate' });
    };
    await fixture.delivery.deliver(email.emailId);
    expect(await fixture.receive(bounce, notificationId)).toEqual({ outcome: 'duplicate' });
    const outcome = await fixture.outcome(email);
    expect(outcome.counters).toMatchObject({ bounced_count: 1 });
    expect(outcome.events.filter((name) => name === 'email.bounced')).toHaveLength(1);
  });

  it('applies the events kept for an email whose send then fails for good: it stays FAILED, and the bounce suppresses', async () => {
    const email = await fixture.queuedEmail();
    fixture.mailer.onAccept = async (_message, messageId) => {
      const bounce = sesEvent('Bounce', messageId, permanentBounce(email.address));
      expect(await fixture.receive({ ...bounce, mail: { ...bounce.mail, tags: { emailId: [email.emailId] } } })).toEqual({ outcome: 'kept' });
      throw new PermanentMailError('Email address is not verified.');
    };
    await expect(fixture.delivery.deliver(email.emailId)).rejects.toThrow(PermanentMailError);
    expect(await fixture.outcome(email)).toMatchObject({
      row: { status: 'FAILED', error: 'Email address is not verified.', bouncedAt: expect.any(Date) },
      suppression: 'BOUNCE',
      subscribed: false,
      events: ['contact.unsubscribed', 'email.bounced', 'email.failed'],
      waitingInBacklog: 0,
    });
  });

  it('drops a notification never matched after 24 hours, in the housekeeping pass, with a log line naming it', async () => {
    const [stale, fresh] = [randomUUID(), randomUUID()];
    const emailId = randomUUID();
    const record = { ...sesEvent('Delivery', 'never-recorded'), mail: { messageId: 'never-recorded', tags: { emailId: [emailId] } } };
    expect(await fixture.receive(record, stale)).toEqual({ outcome: 'kept' });
    expect(await fixture.receive(sesEvent('Open', 'never-recorded-either'), fresh)).toEqual({ outcome: 'kept' });
    await fixture.query(`UPDATE mail_event_backlog SET received_at = now() - interval '25 hours' WHERE notification_id = $1`, [stale]);
    const warn = jest.spyOn(logger, 'warn');

    const { purgeExpiredRecords } = createHousekeepingActivities({ dataSource: fixture.dataSource });
    expect(await new MockActivityEnvironment().run(purgeExpiredRecords)).toMatchObject({ mailEventBacklog: 1 });

    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ notificationId: stale, messageId: 'never-recorded', emailId, eventType: 'Delivery' }),
      expect.stringContaining('dropped a mail event'),
    );
    expect(await backlogEntry(stale)).toHaveLength(0);
    expect(await backlogEntry(fresh)).toHaveLength(1);
  });
});
