import { randomUUID } from 'node:crypto';
import type { Answer, Client } from './api';

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

  post(record: unknown): Promise<Answer> {
    return this.client.call('POST', `/webhooks/mail-events?secret=${encodeURIComponent(this.secret)}`, {
      rawBody: snsNotification(record),
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
    });
  }

  /** A permanent bounce of the email with `messageId`. */
  bounce = (messageId: string) =>
    this.post(sesEvent('Bounce', messageId, { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: 'x@example.com' }] }));

  /** A transient bounce, which does not count against the project. */
  softBounce = (messageId: string) => this.post(sesEvent('Bounce', messageId, { bounceType: 'Transient', bounceSubType: 'MailboxFull' }));

  /** A spam complaint about the email with `messageId`. */
  complaint = (messageId: string) => this.post(sesEvent('Complaint', messageId, { complaintFeedbackType: 'abuse' }));
}
