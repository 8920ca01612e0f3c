import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';

/** The public links of a contact, signed so that nobody can forge another contact's. */
export interface ContactLinks {
  unsubscribeUrl: string;
  subscribeUrl: string;
  manageUrl: string;
}

function signature(secret: string, contactId: string): string {
  return createHmac('sha256', secret).update(`contact:${contactId}`).digest('base64url').slice(0, 32);
}

/** A token naming a contact: its id and an HMAC of it under TOKEN_SECRET. */
export function contactToken(config: Pick<Config, 'tokenSecret'>, contactId: string): string {
  return `${contactId}.${signature(config.tokenSecret, contactId)}`;
}

/** The contact id inside a token, or undefined when the token was not made by this deployment. */
export function contactIdFromToken(config: Pick<Config, 'tokenSecret'>, token: string): string | undefined {
  const [contactId, given] = token.split('.');
  if (!contactId || !given) return undefined;
  const expected = Buffer.from(signature(config.tokenSecret, contactId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? contactId : undefined;
}

/** The unsubscribe, subscribe and manage page links of a contact. */
export function contactLinks(config: Pick<Config, 'tokenSecret' | 'publicUrl'>, contactId: string): ContactLinks {
  const token = contactToken(config, contactId);
  return {
    unsubscribeUrl: `${config.publicUrl}/unsubscribe/${token}`,
    subscribeUrl: `${config.publicUrl}/subscribe/${token}`,
    manageUrl: `${config.publicUrl}/manage/${token}`,
  };
}
