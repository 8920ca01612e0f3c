import { domainToASCII } from 'node:url';
import type { DomainRecord, DomainStatus } from '../entities/domain';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The domain as Herald stores it (lower-case ASCII, internationalised names in their `xn--`
 * form, no trailing dot), or undefined when it is not a hostname of at least two labels
 * under a top-level domain with a letter (which also refuses IP addresses).
 */
export function normaliseDomain(input: string): string | undefined {
  const ascii = domainToASCII(input.trim().replace(/\.$/, ''));
  const labels = ascii.split('.');
  if (ascii.length > 253 || labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  return /[a-z]/.test(labels[labels.length - 1]) ? ascii : undefined;
}

/** The subdomain SES uses as MAIL FROM (bounce) domain: `mail.<domain>`. */
export const mailFromDomain = (domain: string) => `mail.${domain}`;

const SPF_VALUE = 'v=spf1 include:amazonses.com ~all';
const DMARC_VALUE = 'v=DMARC1; p=none;';

/**
 * The records every domain publishes besides its identity records: the MAIL FROM subdomain's MX
 * (SES's feedback endpoint of the region) and SPF TXT, and a DMARC TXT.
 */
export function mailFromAndDmarcRecords(domain: string, sesRegion: string): DomainRecord[] {
  return [
    {
      type: 'MX',
      name: mailFromDomain(domain),
      value: `feedback-smtp.${sesRegion}.amazonses.com`,
      priority: 10,
      status: 'PENDING',
    },
    { type: 'TXT', name: mailFromDomain(domain), value: SPF_VALUE, status: 'PENDING' },
    { type: 'TXT', name: `_dmarc.${domain}`, value: DMARC_VALUE, status: 'PENDING' },
  ];
}

/**
 * What a record is for: `identity` (the DKIM CNAMEs on SES, the `_herald` verification TXT
 * otherwise: they prove the domain is the project's), `mailFrom` (MX and SPF of the MAIL FROM
 * subdomain) or `dmarc` (recommended, not required for verification).
 */
export type RecordRole = 'identity' | 'mailFrom' | 'dmarc';

export function recordRole(record: DomainRecord): RecordRole {
  if (record.name.startsWith('_dmarc.')) return 'dmarc';
  if (record.type === 'MX' || record.value === SPF_VALUE) return 'mailFrom';
  return 'identity';
}

const hostname = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * Whether what DNS answered for a record's name satisfies it. CNAME and MX compare host names
 * (an MX of another priority still counts); SPF and DMARC accept the owner's own policy as long
 * as it is one (SPF must include amazonses.com), since a domain publishes only one of each; any
 * other TXT must be present exactly.
 */
export function recordMatches(record: DomainRecord, answers: string[]): boolean {
  switch (record.type) {
    case 'CNAME':
    case 'MX':
      return answers.some((answer) => hostname(answer) === hostname(record.value));
    case 'TXT': {
      const texts = answers.map((answer) => answer.trim());
      if (record.value === SPF_VALUE) {
        return texts.some((text) => /^v=spf1\s/i.test(text) && /\sinclude:amazonses\.com(\s|$)/i.test(text));
      }
      if (record.value === DMARC_VALUE) return texts.some((text) => /^v=DMARC1\s*;/i.test(text));
      return texts.includes(record.value);
    }
  }
}

/**
 * A domain's status after a check. A pending domain is VERIFIED once every required record is
 * found (DMARC is recommended, not required). A verified domain stays VERIFIED while its identity
 * records are found, even if MAIL FROM or DMARC records go missing (mail still flows, SES falls back
 * to its own MAIL FROM); losing an identity record (the DKIM CNAMEs or the verification TXT) puts it
 * back to PENDING, and sending from it stops until it is verified again.
 */
export function statusAfterCheck(current: DomainStatus, records: DomainRecord[]): DomainStatus {
  const found = (roles: RecordRole[]) =>
    records.filter((record) => roles.includes(recordRole(record))).every((record) => record.status === 'VERIFIED');
  const verified = current === 'VERIFIED' ? found(['identity']) : found(['identity', 'mailFrom']);
  return verified ? 'VERIFIED' : 'PENDING';
}
