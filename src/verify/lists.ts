import { POPULAR_DOMAINS, run as suggestDomain } from '@zootools/email-spell-checker';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';

/** Free mailbox providers for personal use (exact domains). */
const PERSONAL_PROVIDERS = new Set([
  'gmail.com', 'googlemail.com',
  'outlook.com', 'hotmail.com', 'hotmail.co.uk', 'hotmail.fr', 'hotmail.de', 'hotmail.it', 'hotmail.es',
  'live.com', 'live.co.uk', 'live.fr', 'msn.com',
  'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'yahoo.it', 'yahoo.es', 'yahoo.co.jp', 'yahoo.co.in',
  'yahoo.com.br', 'ymail.com', 'rocketmail.com', 'aol.com', 'aim.com',
  'icloud.com', 'me.com', 'mac.com',
  'proton.me', 'protonmail.com', 'protonmail.ch', 'pm.me',
  'gmx.com', 'gmx.net', 'gmx.de', 'gmx.at', 'gmx.ch', 'gmx.fr', 'web.de', 'mail.com', 't-online.de', 'freenet.de',
  'zoho.com', 'zohomail.com', 'fastmail.com', 'fastmail.fm', 'hey.com', 'tutanota.com', 'tuta.io', 'tutamail.com',
  'mailbox.org', 'posteo.de', 'posteo.net',
  'yandex.com', 'yandex.ru', 'ya.ru', 'mail.ru', 'inbox.ru', 'list.ru', 'bk.ru', 'rambler.ru',
  'qq.com', '163.com', '126.com', 'sina.com', 'naver.com', 'daum.net', 'hanmail.net', 'rediffmail.com',
  'orange.fr', 'wanadoo.fr', 'free.fr', 'laposte.net', 'sfr.fr', 'libero.it', 'virgilio.it', 'seznam.cz',
  'wp.pl', 'o2.pl', 'onet.pl', 'interia.pl',
  'comcast.net', 'verizon.net', 'att.net', 'sbcglobal.net', 'cox.net', 'charter.net', 'earthlink.net', 'juno.com',
  'btinternet.com', 'sky.com', 'bigpond.com', 'optusnet.com.au', 'shaw.ca', 'rogers.com', 'sympatico.ca',
]);

/** Relay services that hand out forwarding aliases; their subdomains count too (e.g. `ada.anonaddy.com`). */
const ALIAS_SERVICES = [
  'privaterelay.appleid.com',
  'duck.com',
  'mozmail.com',
  'relay.firefox.com',
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'aleeas.com',
  'slmail.me',
  'slmails.com',
  'silomails.com',
  '8alias.com',
  '8shield.net',
  'anonaddy.com',
  'anonaddy.me',
  'addy.io',
  'passmail.net',
  'passmail.com',
  'passinbox.com',
  '33mail.com',
  'opayq.com',
];

/** Domains the typo check may suggest: the spell checker's popular domains and the personal providers. */
const WELL_KNOWN = [...new Set([...POPULAR_DOMAINS, ...PERSONAL_PROVIDERS])];
const WELL_KNOWN_SET = new Set(WELL_KNOWN);

const disposable = disposableEmailBlocklistSet();

/** The domain and each parent with at least two labels (`a.b.example.com`, `b.example.com`, `example.com`). */
function withParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, index) => labels.slice(index).join('.'));
}

/** Whether the domain (or a parent) belongs to a disposable-address service. */
export function isDisposableDomain(domain: string): boolean {
  return withParents(domain).some((name) => disposable.has(name));
}

/** Whether the domain belongs to an email relay (alias) service. */
export function isAliasDomain(domain: string): boolean {
  return withParents(domain).some((name) => ALIAS_SERVICES.includes(name));
}

/** Whether the domain is a free personal mailbox provider. */
export function isPersonalDomain(domain: string): boolean {
  return PERSONAL_PROVIDERS.has(domain);
}

/**
 * The well-known mailbox domain this one looks like a misspelling of, if any (`gmial.com` -> `gmail.com`);
 * typo domains that catch mail for others are often listed as disposable too, which does not stop the suggestion.
 */
export function typoSuggestion(domain: string): string | undefined {
  if (WELL_KNOWN_SET.has(domain) || isAliasDomain(domain)) return undefined;
  const suggestion = suggestDomain({ email: `user@${domain}`, domains: WELL_KNOWN })?.domain;
  return suggestion && suggestion !== domain && WELL_KNOWN_SET.has(suggestion) ? suggestion : undefined;
}
