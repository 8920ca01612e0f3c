import { randomUUID } from 'node:crypto';
import type { Transport } from '../../src/config';
import type { Mailer, OutgoingMessage, SentMessage } from '../../src/mailer/types';
import type { Answer, Client } from './api';
import type { CapturedEmail } from './ses-server';

/** The SNS topic the test notifications come from. */
export const TOPIC = 'arn:aws:sns:us-east-1:123456789012:herald-mail-events';

const SECTIONS: Record<string, string> = {
  Delivery: 'delivery',
  Bounce: 'bounce',
  Complaint: 'complaint',
  Open: 'open',
  Click: 'click',
  Reject: 'reject',
  DeliveryDelay: 'deliveryDelay',
};

/** An SES event-publishing record about `messageId`. */
export function sesEvent(eventType: string, messageId: string, section: Record<string, unknown> = {}, timestamp = new Date().toISOString()) {
  return {
    eventType,
    mail: { timestamp: '2025-01-01T12:00:00.000Z', messageId, source: 'hello@mail.example.com', destination: ['someone@example.com'] },
    [SECTIONS[eventType]]: { timestamp, ...section },
  };
}

/** A permanent bounce of `address`, as the `bounce` object of an SES record. */
export const permanentBounce = (address: string) => ({
  bounceType: 'Permanent',
  bounceSubType: 'General',
  bouncedRecipients: [{ emailAddress: address, diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
});

/** An SES record about a message SES accepted, carrying the message's tags in `mail.tags` (`{ name: [value] }`) as SES does. */
export function sesEventAbout(email: CapturedEmail, eventType: string, section: Record<string, unknown> = {}) {
  const record = sesEvent(eventType, email.messageId, section);
  const tags = Object.fromEntries((email.request.EmailTags ?? []).map((tag) => [tag.Name, [tag.Value]]));
  return { ...record, mail: { ...record.mail, tags } };
}

/** An SNS notification envelope carrying `record`, as the JSON text SNS posts. */
export function snsNotification(record: unknown, messageId: string = randomUUID()): string {
  return JSON.stringify({
    Type: 'Notification',
    MessageId: messageId,
    TopicArn: TOPIC,
    Message: JSON.stringify(record),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '1',
    Signature: 'c2lnbmF0dXJl',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-example.pem',
  });
}

/** Posts SES events to `POST /webhooks/mail-events` the way SNS does (JSON as text/plain, secret in the query). */
export class MailEventsPoster {
  constructor(
    private readonly client: Client,
    private readonly secret: string,
  ) {}

  /** Posts one notification; the same `notificationId` twice is the same notification delivered again. */
  post(record: unknown, notificationId?: string): Promise<Answer> {
    return this.client.call('POST', `/webhooks/mail-events?secret=${encodeURIComponent(this.secret)}`, {
      rawBody: snsNotification(record, notificationId),
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
    });
  }

  /** A permanent bounce of the email with `messageId`. */
  bounce = (messageId: string) => this.post(sesEvent('Bounce', messageId, permanentBounce('x@example.com')));

  /** A transient bounce, which does not count against the project. */
  softBounce = (messageId: string) => this.post(sesEvent('Bounce', messageId, { bounceType: 'Transient', bounceSubType: 'MailboxFull' }));

  /** A spam complaint about the email with `messageId`. */
  complaint = (messageId: string) => this.post(sesEvent('Complaint', messageId, { complaintFeedbackType: 'abuse' }));
}

/**
 * A Mailer that accepts every message under a new SES-like message id, after running
 * `onAccept` (what happens between SES accepting a message and Herald hearing back).
 */
export class AcceptingMailer implements Mailer {
  readonly transport: Transport = 'ses';
  onAccept: (message: OutgoingMessage, messageId: string) => Promise<void> = async () => {};

  async send(message: OutgoingMessage): Promise<SentMessage> {
    const messageId = `0100018c-${randomUUID()}-000000`;
    await this.onAccept(message, messageId);
    return { messageId };
  }
}
