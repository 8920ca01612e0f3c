import type { DataSource } from 'typeorm';
import { answeredStatus, sendWebhook } from '../automations/webhook-client';
import { signedHeaders, webhookMessageId } from './signature';
import * as queries from './webhooks-queries';

/** How one attempt ended: delivered (now or before), or ended for good (endpoint gone, disabled, delivery already failed). */
export type AttemptOutcome = { done: 'DELIVERED' | 'FAILED' | 'GONE'; reason?: string } | { retry: string };

/** What attempts need to know: whether private targets are allowed, and the timeout of one POST. */
export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** The whole POST, DNS to the last byte of the answer. */
  timeoutMs: number;
}

/** The timeout of one POST to an endpoint. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The body of an event: the same bytes on every attempt and to every endpoint. */
export function eventBody(event: { type: string; createdAt: Date; data: Record<string, unknown> }): string {
  return JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });
}

/**
 * Makes one attempt of one delivery: a signed POST of the event to its endpoint as they are now
 * (a rotated secret signs later attempts), recorded on the delivery. Repeating an attempt whose
 * delivery was already recorded DELIVERED sends nothing.
 */
export class WebhookSender {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: WebhookSenderOptions,
  ) {}

  /** Attempt number `attempt` (Temporal's, from 1) of the delivery. */
  async attempt(deliveryId: string, attempt: number, now: Date = new Date()): Promise<AttemptOutcome> {
    const manager = this.dataSource.manager;
    const subject = await queries.attemptSubject(manager, deliveryId);
    if (!subject) return { done: 'GONE', reason: 'The delivery, its endpoint or its project was deleted' };
    if (subject.status !== 'PENDING') return { done: subject.status };
    if (!subject.enabled) {
      const reason = `The endpoint is disabled${subject.disabledReason ? `: ${subject.disabledReason}` : ''}`;
      await queries.failDelivery(manager, deliveryId, reason, false);
      return { done: 'FAILED', reason };
    }
    const body = eventBody({ type: subject.eventType, createdAt: subject.eventCreatedAt, data: subject.data });
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Herald-Webhooks/1',
      ...signedHeaders(subject.secret, webhookMessageId(subject.eventId), Math.floor(now.getTime() / 1000), body),
    };
    try {
      const answer = await sendWebhook({ url: subject.url, method: 'POST', headers, body }, this.options);
      await queries.recordDelivered(manager, deliveryId, attempt, answer.status);
      return { done: 'DELIVERED' };
    } catch (err) {
      const error = (err as Error).message;
      const { disabled } = await queries.recordFailure(manager, deliveryId, subject.endpointId, attempt, { statusCode: answeredStatus(err) ?? null, error });
      return disabled ? { done: 'FAILED', reason: error } : { retry: error };
    }
  }

  /** Ends a delivery whose attempts are used up as FAILED, keeping its last attempt's error. */
  async giveUp(deliveryId: string, reason: string): Promise<void> {
    await queries.failDelivery(this.dataSource.manager, deliveryId, reason, true);
  }
}
