import type { Domain } from '../entities/domain';
import type { WebhookEventInput } from './webhook-events';

/**
 * The bodies of the events Herald's own writes emit to webhook endpoints (CONTRACT 16): one
 * builder per family, so every path that emits a type says the same things about it. Each event
 * that an at-least-once path may emit again carries a key naming what happened once.
 */

/** What an `email.*` event tells about its email. */
export interface EmailFacts {
  id: string;
  contactId: string | null;
  toEmail: string;
  subject: string;
  campaignId: string | null;
  templateId?: string | null;
  workflowId?: string | null;
}

/** What a `contact.*` or `segment.*` event tells about its contact. */
export interface ContactFacts {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
}

/** The entries of an object whose value is neither null nor undefined. */
function present(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined));
}

/** An `email.*` event: the email's id, contact, address, subject and origin, with the event's own detail. */
export function emailEvent(type: string, email: EmailFacts, detail: Record<string, unknown>, key: string): WebhookEventInput {
  const origin = present({ campaignId: email.campaignId, workflowId: email.workflowId, templateId: email.templateId });
  return { type, key, data: { emailId: email.id, contactId: email.contactId, to: email.toEmail, subject: email.subject, ...origin, ...present(detail) } };
}

/** The key of an event type that happens at most once to an email (`email.sent`, `email.failed`, `email.suppressed`). */
export const emailKey = (emailId: string, type: string) => `email:${emailId}:${type}`;

/** The key of an event a stored SYSTEM event announces: that event's id. */
export const storedEventKey = (eventId: string) => `event:${eventId}`;

/** A `contact.*` event: the contact's id, address, subscription and data as the write left them. */
export function contactEvent(type: string, contact: ContactFacts, key?: string): WebhookEventInput {
  return { type, key, data: { contactId: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data } };
}

/** A `segment.<slug>.entry|exit` event: the contact as a `contact.*` event tells it, with the segment. */
export function segmentEvent(type: string, contact: ContactFacts, segment: { segmentId: unknown; segmentName?: unknown }, key: string): WebhookEventInput {
  const { data } = contactEvent(type, contact);
  return { type, key, data: { ...data, ...present({ segmentId: segment.segmentId, segmentName: segment.segmentName }) } };
}

/** What `campaign.sent` tells about a campaign that finished sending. */
export interface CampaignFacts {
  id: string;
  name: string;
  subject: string;
  sentAt: Date;
  totalRecipients: number;
  sentCount: number;
  deliveredCount: number;
  openedCount: number;
  clickedCount: number;
  bouncedCount: number;
  complainedCount: number;
}

/** `campaign.sent`: the campaign's id, name, subject, when it ended and its counts at that moment. */
export function campaignSentEvent(campaign: CampaignFacts): WebhookEventInput {
  const { id, name, subject, sentAt, totalRecipients, sentCount, deliveredCount, openedCount, clickedCount, bouncedCount, complainedCount } = campaign;
  const counts = { totalRecipients, sentCount, deliveredCount, openedCount, clickedCount, bouncedCount, complainedCount };
  return { type: 'campaign.sent', key: `campaign:${id}:sent`, data: { campaignId: id, name, subject, sentAt: new Date(sentAt).toISOString(), ...counts } };
}

/**
 * `domain.verified` or `domain.failed`: the domain's id, name, status and the state of each of
 * its DNS records; `reason` says why a domain failed. The key names the check that found it.
 */
export function domainEvent(type: 'domain.verified' | 'domain.failed', domain: Pick<Domain, 'id' | 'domain' | 'status' | 'records'>, key: string, reason?: string): WebhookEventInput {
  const records = domain.records.map(({ type: recordType, name, value, status }) => ({ type: recordType, name, value, status }));
  return { type, key, data: { domainId: domain.id, domain: domain.domain, status: domain.status, records, ...present({ reason }) } };
}
