import type { EntityManager } from 'typeorm';
import { insertEvents } from './webhooks-queries';

/** The event types an endpoint may subscribe to by name (besides `*` and `segment.<slug>.entry|exit`). */
export const WEBHOOK_EVENT_TYPES: readonly string[] = Object.freeze([
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.suppressed',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.subscribed',
  'contact.unsubscribed',
  'campaign.sent',
  'domain.verified',
  'domain.failed',
]);

/** The type of the event `POST /webhooks/{id}/test` sends to one endpoint. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** `segment.<slug>.entry` or `.exit`, the slug as segments make it (lower-case letters and digits in `-`-separated runs). */
const SEGMENT_EVENT = /^segment\.[a-z0-9]+(?:-[a-z0-9]+)*\.(?:entry|exit)$/;

const KNOWN = new Set(WEBHOOK_EVENT_TYPES);

/** Whether a name is an event type Herald emits: one of WEBHOOK_EVENT_TYPES or `segment.<slug>.entry|exit`. */
export function isWebhookEventType(name: string): boolean {
  return KNOWN.has(name) || SEGMENT_EVENT.test(name);
}

/** One event to record: its type, its `data`, and an optional key that records it once per project. */
export interface WebhookEventInput {
  type: string;
  data: Record<string, unknown>;
  /** dedupe: the same key for one project records the event once */
  key?: string;
}

/**
 * Records events for the project's enabled endpoints that subscribe to them, in the caller's
 * transaction; stores nothing when no endpoint wants them. One statement; a repeated call with
 * the same keys records nothing more. Delivery starts after the transaction commits.
 */
export async function emitWebhookEvents(manager: EntityManager, projectId: string, events: WebhookEventInput[]): Promise<void> {
  await insertEvents(manager, projectId, events);
}
