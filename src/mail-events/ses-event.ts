import type { EmailStatus } from '../entities/email';
import type { SuppressionReason } from '../entities/suppression';
import { badRequest } from '../http/errors';
import { isUuid } from '../http/validate';

/** The email columns that remember when something first happened to it. */
export type EmailMilestone = 'deliveredAt' | 'openedAt' | 'clickedAt' | 'bouncedAt' | 'complainedAt';

/** What one SES event-publishing record means for the email it is about. */
export interface MailEvent {
  /** SES's name for it: `Delivery`, `Bounce`, `Open`, ... */
  eventType: string;
  /** SES `mail.messageId`, the `message_id` of the email. */
  messageId: string;
  /** The `emailId` tag Herald puts on every message (SES returns it in `mail.tags`), when it is a UUID. */
  emailId?: string;
  occurredAt: Date;
  /** The status the email moves to (forward only, see src/sending/status.ts). */
  status?: EmailStatus;
  /** The column set to `occurredAt` when it is still empty. */
  milestone?: EmailMilestone;
  /** The SYSTEM event stored on the email's contact. */
  eventName?: string;
  /** The webhook event type of an event that stores no SYSTEM event (`email.delivery_delayed`). */
  notice?: string;
  /** Suppress the address and unsubscribe the contact. */
  suppress?: SuppressionReason;
  /** Details stored with the event. */
  details: Record<string, unknown>;
}

type Meaning = Omit<MailEvent, 'eventType' | 'messageId' | 'emailId' | 'occurredAt'>;
type Section = Record<string, unknown>;

/** The object of a record that describes each event type. */
const SECTIONS: Record<string, string> = {
  Send: 'send',
  Delivery: 'delivery',
  Bounce: 'bounce',
  Complaint: 'complaint',
  Open: 'open',
  Click: 'click',
  Reject: 'reject',
  DeliveryDelay: 'deliveryDelay',
  RenderingFailure: 'failure',
};

/** A non-empty string, without NUL (which Postgres text and jsonb cannot hold). */
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' && !value.includes('\u0000') ? value : undefined);

function date(value: unknown): Date | undefined {
  const parsed = typeof value === 'string' ? new Date(value) : undefined;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : undefined;
}

/**
 * The effect of each event type. Send is already recorded when Herald hands the message
 * over (`email.sent`) and changes nothing. DeliveryDelay is not final (SES keeps retrying, and
 * the stored `email.*` family has no name for it): it changes nothing either, and is only told
 * to webhook endpoints as `email.delivery_delayed`. A bounce that is not Permanent
 * (Transient, Undetermined) is stored as `email.bounced` but neither moves the status nor
 * suppresses: the address may well work tomorrow.
 */
function meaning(eventType: string, section: Section): Meaning {
  switch (eventType) {
    case 'Delivery':
      return { status: 'DELIVERED', milestone: 'deliveredAt', eventName: 'email.delivered', details: {} };
    case 'Open':
      return { status: 'OPENED', milestone: 'openedAt', eventName: 'email.opened', details: {} };
    case 'Click':
      return { status: 'CLICKED', milestone: 'clickedAt', eventName: 'email.clicked', details: { link: text(section.link) } };
    case 'Bounce': {
      const [recipient] = Array.isArray(section.bouncedRecipients) ? (section.bouncedRecipients as Section[]) : [];
      const bounceType = text(section.bounceType) ?? 'Undetermined';
      const details = { bounceType, bounceSubType: text(section.bounceSubType), diagnosticCode: text(recipient?.diagnosticCode) };
      return bounceType === 'Permanent'
        ? { status: 'BOUNCED', milestone: 'bouncedAt', eventName: 'email.bounced', suppress: 'BOUNCE', details }
        : { eventName: 'email.bounced', details };
    }
    case 'Complaint':
      return {
        status: 'COMPLAINED',
        milestone: 'complainedAt',
        eventName: 'email.complained',
        suppress: 'COMPLAINT',
        details: { complaintFeedbackType: text(section.complaintFeedbackType) },
      };
    case 'Reject':
      return { status: 'FAILED', eventName: 'email.failed', details: { reason: `Rejected by SES: ${text(section.reason) ?? 'no reason given'}` } };
    case 'DeliveryDelay': {
      const [recipient] = Array.isArray(section.delayedRecipients) ? (section.delayedRecipients as Section[]) : [];
      const details = { delayType: text(section.delayType), expirationTime: text(section.expirationTime), diagnosticCode: text(recipient?.diagnosticCode) };
      return { notice: 'email.delivery_delayed', details };
    }
    case 'RenderingFailure':
      return { status: 'FAILED', eventName: 'email.failed', details: { reason: `SES could not render the message: ${text(section.errorMessage) ?? 'no reason given'}` } };
    default:
      return { details: {} };
  }
}

/** The `emailId` tag of a record's mail (`{ "emailId": ["<uuid>"] }`); anything but a UUID names no email and is ignored. */
function emailIdTag(mail: Section): string | undefined {
  const tags = (mail.tags ?? {}) as Section;
  const [value] = Array.isArray(tags.emailId) ? (tags.emailId as unknown[]) : [];
  return typeof value === 'string' && isUuid(value) ? value : undefined;
}

/** Reads the SES record inside an SNS notification (event publishing, or the older `notificationType` form); 400 when unreadable. */
export function parseSesEvent(message: string): MailEvent {
  let record: Section;
  try {
    record = JSON.parse(message);
  } catch {
    throw badRequest('The notification Message is not a JSON SES event');
  }
  if (!record || typeof record !== 'object') throw badRequest('The notification Message is not an SES event');
  const eventType = text(record.eventType) ?? text(record.notificationType);
  const mail = (record.mail ?? {}) as Section;
  const messageId = text(mail.messageId);
  if (!eventType || !messageId) throw badRequest('The SES event has no eventType or mail.messageId');
  const section = (SECTIONS[eventType] ? record[SECTIONS[eventType]] ?? {} : {}) as Section;
  const occurredAt = date(section.timestamp) ?? date(mail.timestamp) ?? new Date();
  return { eventType, messageId, emailId: emailIdTag(mail), occurredAt, ...meaning(eventType, section) };
}
