import { domainToASCII } from 'node:url';

/** An address split into its parts, or the sentence saying why it is not an address. */
export type ParsedAddress =
  | { valid: true; local: string; domain: string }
  | { valid: false; reason: string };

const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const MAX_LABEL = 63;

/** RFC 5322 `atext`, plus any non-ASCII letter or symbol (RFC 6531); quoted local parts are not accepted. */
const LOCAL_ATOM = /^(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\p{ASCII}\p{Z}\p{C}])+$/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const invalid = (reason: string): ParsedAddress => ({ valid: false, reason });

/** Checks an address against a sane subset of RFC 5322 and splits it; the domain comes back lower-case ASCII. */
export function parseAddress(email: string): ParsedAddress {
  if (email === '') return invalid('The email address is empty.');
  if (email.length > MAX_ADDRESS) return invalid(`The email address is longer than ${MAX_ADDRESS} characters.`);
  const at = email.lastIndexOf('@');
  if (at === -1) return invalid('The email address has no @.');
  const local = email.slice(0, at);
  const rawDomain = email.slice(at + 1);

  if (local === '') return invalid('The part before the @ is empty.');
  if (Buffer.byteLength(local) > MAX_LOCAL) return invalid(`The part before the @ is longer than ${MAX_LOCAL} bytes.`);
  const atoms = local.split('.');
  if (atoms[0] === '' || atoms[atoms.length - 1] === '') {
    return invalid('The part before the @ starts or ends with a dot.');
  }
  if (atoms.includes('')) return invalid('The part before the @ has consecutive dots.');
  if (!atoms.every((atom) => LOCAL_ATOM.test(atom))) {
    return invalid('The part before the @ contains characters that are not allowed.');
  }

  if (rawDomain === '') return invalid('The domain is missing.');
  if (rawDomain.includes('..')) return invalid('The domain has consecutive dots.');
  if (rawDomain.startsWith('.') || rawDomain.endsWith('.')) return invalid('The domain starts or ends with a dot.');
  const domain = domainToASCII(rawDomain.toLowerCase());
  if (domain === '') return invalid('The domain contains characters that are not allowed.');
  if (domain.length > MAX_DOMAIN) return invalid(`The domain is longer than ${MAX_DOMAIN} characters.`);
  const labels = domain.split('.');
  if (labels.length < 2) return invalid('The domain has no top-level domain.');
  if (!labels.every((label) => label.length <= MAX_LABEL && LABEL.test(label))) {
    return invalid('The domain contains characters that are not allowed.');
  }
  if (!TLD.test(labels[labels.length - 1])) return invalid('The domain does not end in a valid top-level domain.');
  return { valid: true, local, domain };
}
