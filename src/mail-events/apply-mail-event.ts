import { countMailEvent } from '../campaigns/campaigns-queries';
import type { ContactsService } from '../contacts/contacts-service';
import type { Email, EmailStatus } from '../entities/email';
import type { EventTransaction } from '../events/event-store';
import { suppress } from '../sending/send-queries';
import { nextStatus } from '../sending/status';
import { emailEvent } from '../webhooks/source-events';
import { emitWebhookEvents } from '../webhooks/webhook-events';
import { updateEmail } from './mail-event-queries';
import type { MailEvent } from './ses-event';

/** What one mail event did to its email: the facts campaign counters and analytics move from. */
export interface EmailChange {
  emailId: string;
  projectId: string;
  campaignId: string | null;
  eventType: string;
  from: EmailStatus;
  to: EmailStatus;
  /** True when the event's milestone column (e.g. `opened_at`) was empty until now: the first open, click, ... */
  firstOccurrence: boolean;
}

/**
 * Applies a mail event to its email, locked by the caller's transaction: moves the status
 * forward, fills the milestone column if still empty (so out-of-order events keep their
 * times), stores the `email.*` event on the contact, emits its webhook event (keyed by the SNS
 * notification, `notificationId`), and for a hard bounce or complaint suppresses the address and
 * unsubscribes the contact.
 */
export async function applyMailEvent(
  tx: EventTransaction,
  contacts: ContactsService,
  email: Email,
  event: MailEvent,
  notificationId: string,
): Promise<EmailChange> {
  const to = event.status ? nextStatus(email.status, event.status) : email.status;
  const firstOccurrence = event.milestone !== undefined && email[event.milestone] === null;
  const patch: Partial<Pick<Email, 'status' | 'error' | NonNullable<MailEvent['milestone']>>> = {};
  if (to !== email.status) patch.status = to;
  if (to === 'FAILED' && email.status !== 'FAILED') patch.error = String(event.details.reason).slice(0, 1000);
  if (firstOccurrence) patch[event.milestone!] = event.occurredAt;
  if (Object.keys(patch).length > 0) await updateEmail(tx.manager, email.id, patch);

  if (event.eventName) {
    await tx.record([{
      projectId: email.projectId,
      contactId: email.contactId,
      name: event.eventName,
      source: 'SYSTEM',
      data: { emailId: email.id, messageId: event.messageId, subject: email.subject, timestamp: event.occurredAt.toISOString(), ...event.details },
    }]);
  }
  const webhookType = event.eventName ?? event.notice;
  if (webhookType) {
    const detail = { messageId: event.messageId, timestamp: event.occurredAt.toISOString(), ...event.details };
    await emitWebhookEvents(tx.manager, email.projectId, [emailEvent(webhookType, email, detail, `ses:${notificationId}`)]);
  }
  if (email.campaignId && firstOccurrence) await countMailEvent(tx.manager, email.campaignId, event.milestone!);
  if (event.suppress) {
    await suppress(tx.manager, email.projectId, email.toEmail, event.suppress);
    if (email.contactId) await contacts.setSubscribed(tx, email.projectId, [email.contactId], false);
  }
  return {
    emailId: email.id,
    projectId: email.projectId,
    campaignId: email.campaignId,
    eventType: event.eventType,
    from: email.status,
    to,
    firstOccurrence,
  };
}
