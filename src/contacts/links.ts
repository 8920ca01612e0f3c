import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';

/** The public links of a contact, signed so that nobody can forge another contact's. */
export interface ContactLinks {
  unsubscribeUrl: string;
  subscribeUrl: string;
  manageUrl: string;
}

/** What a link lets its holder do; a token opens only the page of its own purpose. */
export type LinkPurpose = 'unsubscribe' | 'subscribe' | 'manage';

/**
 * How long a link works after its email is rendered. Unsubscribe links stay a year, since mail
 * sits in inboxes and the law wants them to keep working; the others, which can subscribe, 90 days.
 */
const LINK_LIFETIME_DAYS: Record<LinkPurpose, number> = { unsubscribe: 365, subscribe: 90, manage: 90 };

/** Tokens of the first format (a contact id and its signature, no purpose or expiry) open the unsubscribe page until then, and nothing else. */
export const LEGACY_UNSUBSCRIBE_UNTIL = new Date('2027-12-01T00:00:00Z');

const PREFIX: Record<LinkPurpose, string> = { unsubscribe: 'u', subscribe: 's', manage: 'm' };

/** A token that opens a page, or why it does not: forged, for another purpose or no contact (`invalid`), or too old (`expired`). */
export type TokenCheck = { contactId: string; expiresAt: Date } | { refused: 'invalid' | 'expired' };

type Secret = Pick<Config, 'tokenSecret'>;

function sign(config: Secret, payload: string): string {
  return createHmac('sha256', config.tokenSecret).update(payload).digest('base64url').slice(0, 32);
}

function signedBy(config: Secret, payload: string, given: string): boolean {
  const expected = Buffer.from(sign(config, payload));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** When a link of this purpose made now stops working. */
function linkExpiry(purpose: LinkPurpose, now = Date.now()): Date {
  return new Date(now + LINK_LIFETIME_DAYS[purpose] * 86_400_000);
}

/** A token for one purpose and contact until `expiresAt`: `<purpose>.<contact id>.<expiry, base-36 seconds>.<HMAC under TOKEN_SECRET>`. */
export function contactToken(config: Secret, purpose: LinkPurpose, contactId: string, expiresAt: Date = linkExpiry(purpose)): string {
  const payload = `${PREFIX[purpose]}.${contactId}.${Math.floor(expiresAt.getTime() / 1000).toString(36)}`;
  return `${payload}.${sign(config, `contact-link:${payload}`)}`;
}

/** Reads a token presented to the page of `purpose`. */
export function readContactToken(config: Secret, purpose: LinkPurpose, token: string, now = new Date()): TokenCheck {
  const parts = token.split('.');
  if (parts.length === 2) return readLegacyToken(config, purpose, parts, now);
  const [prefix, contactId, expiry, signature] = parts;
  if (parts.length !== 4 || !signedBy(config, `contact-link:${prefix}.${contactId}.${expiry}`, signature)) return { refused: 'invalid' };
  if (prefix !== PREFIX[purpose]) return { refused: 'invalid' };
  const expiresAt = new Date(parseInt(expiry, 36) * 1000);
  return expiresAt > now ? { contactId, expiresAt } : { refused: 'expired' };
}

/** A token of the first format: honoured for unsubscribing until LEGACY_UNSUBSCRIBE_UNTIL. */
function readLegacyToken(config: Secret, purpose: LinkPurpose, [contactId, signature]: string[], now: Date): TokenCheck {
  if (!signedBy(config, `contact:${contactId}`, signature)) return { refused: 'invalid' };
  if (purpose !== 'unsubscribe' || now >= LEGACY_UNSUBSCRIBE_UNTIL) return { refused: 'expired' };
  return { contactId, expiresAt: LEGACY_UNSUBSCRIBE_UNTIL };
}

/** The unsubscribe, subscribe and manage page links of a contact, each with its own token. */
export function contactLinks(config: Pick<Config, 'tokenSecret' | 'publicUrl'>, contactId: string): ContactLinks {
  return {
    unsubscribeUrl: `${config.publicUrl}/unsubscribe/${contactToken(config, 'unsubscribe', contactId)}`,
    subscribeUrl: `${config.publicUrl}/subscribe/${contactToken(config, 'subscribe', contactId)}`,
    manageUrl: `${config.publicUrl}/manage/${contactToken(config, 'manage', contactId)}`,
  };
}
