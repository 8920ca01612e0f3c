import { createHmac, randomBytes } from 'node:crypto';

/** Random bytes in a new signing secret. */
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The `webhook-id` of an event: the same for every attempt and every endpoint. */
export function webhookMessageId(eventId: string): string {
  return `msg_${eventId}`;
}

/** The Standard Webhooks headers of one attempt: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function signedHeaders(secret: string, messageId: string, timestamp: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
