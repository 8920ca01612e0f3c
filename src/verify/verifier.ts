import type { Lookup } from '../dns/resolver';
import { lookupDomain } from './domain-dns';
import { isAliasDomain, isDisposableDomain, isPersonalDomain, typoSuggestion } from './lists';
import { parseAddress } from './syntax';
import { DEFAULT_WEBSITE_PROBES, hasWebsite, type WebsiteProbe } from './website';

/** The `/v1/verify` result (SPEC "Email verification result"); `suggestion` is present only when `isTypo`. */
export interface VerificationResult {
  email: string;
  valid: boolean;
  isDisposable: boolean;
  isAlias: boolean;
  isTypo: boolean;
  isPlusAddressed: boolean;
  isPersonalEmail: boolean;
  domainExists: boolean;
  hasWebsite: boolean;
  hasMxRecords: boolean;
  reasons: string[];
  suggestion?: string;
}

export interface VerifierOptions {
  /** `host:port` DNS servers; empty uses the system's resolvers. */
  dnsServers: string[];
  /** How long DNS lookups may take in all (default 4 s). */
  dnsTimeoutMs?: number;
  /** How long the website check may take once the domain's addresses are known (default 3 s). */
  websiteTimeoutMs?: number;
  /** Where the website is looked for (default https on 443 and http on 80). */
  websiteProbes?: WebsiteProbe[];
  /** Whether the website check may contact loopback and private addresses (default false). */
  allowPrivateAddresses?: boolean;
}

/** The DNS part of a verdict: the flags and the sentence that explains them. */
function mailDomain(mx: Lookup<string>, addresses: Lookup<string>) {
  const exchanges = mx.records.filter(Boolean);
  const nullMx = mx.records.length > 0 && exchanges.length === 0;
  const hasMxRecords = exchanges.length > 0;
  const domainExists = hasMxRecords || nullMx || addresses.records.length > 0;
  const acceptsMail = hasMxRecords || (!nullMx && addresses.records.length > 0);
  let reason: string;
  if (hasMxRecords) reason = 'The domain has MX records.';
  else if (nullMx) reason = 'The domain does not accept email (null MX record).';
  else if (acceptsMail) reason = 'The domain has no MX records; mail would go to its A/AAAA address.';
  else if (mx.outcome === 'nxdomain' || addresses.outcome === 'nxdomain') reason = 'The domain does not exist.';
  else if (mx.outcome === 'failed' || addresses.outcome === 'failed') reason = 'The domain could not be looked up in DNS.';
  else reason = 'The domain has no MX or A/AAAA records.';
  return { hasMxRecords, domainExists, acceptsMail, reason };
}

/** Checks email addresses: syntax, DNS, disposable and relay domains, typos, plus-addressing and a website. */
export class EmailVerifier {
  private readonly dnsServers: string[];
  private readonly dnsTimeoutMs: number;
  private readonly websiteCheck: { probes: WebsiteProbe[]; timeoutMs: number; allowPrivateAddresses: boolean };

  constructor(options: VerifierOptions) {
    this.dnsServers = options.dnsServers;
    this.dnsTimeoutMs = options.dnsTimeoutMs ?? 4000;
    this.websiteCheck = {
      probes: options.websiteProbes ?? DEFAULT_WEBSITE_PROBES,
      timeoutMs: options.websiteTimeoutMs ?? 3000,
      allowPrivateAddresses: options.allowPrivateAddresses ?? false,
    };
  }

  /** Verifies one address; never throws for a bad address, it says why in `reasons`. */
  async verify(input: string): Promise<VerificationResult> {
    const email = input.trim();
    const address = parseAddress(email);
    if (!address.valid) {
      return {
        email,
        valid: false,
        isDisposable: false,
        isAlias: false,
        isTypo: false,
        isPlusAddressed: false,
        isPersonalEmail: false,
        domainExists: false,
        hasWebsite: false,
        hasMxRecords: false,
        reasons: [address.reason],
      };
    }
    const { local, domain } = address;
    const dns = lookupDomain(domain, this.dnsServers, this.dnsTimeoutMs);
    const website = dns.addresses.then((found) => hasWebsite(domain, found.records, this.websiteCheck));
    const [mx, addresses, websiteFound] = await Promise.all([dns.mx, dns.addresses, website]);

    const mail = mailDomain(mx, addresses);
    const isDisposable = isDisposableDomain(domain);
    const isAlias = isAliasDomain(domain);
    const suggestion = typoSuggestion(domain);
    const isPlusAddressed = /^[^+]+\+/.test(local);
    const isPersonalEmail = isPersonalDomain(domain);
    const reasons = [mail.reason];
    if (isDisposable) reasons.push('The domain belongs to a disposable email service.');
    if (isAlias) reasons.push('The address belongs to an email relay (alias) service.');
    if (suggestion) reasons.push(`The domain looks like a typo of ${suggestion}.`);
    if (isPlusAddressed) reasons.push('The address uses plus addressing (a +tag).');
    if (isPersonalEmail) reasons.push('The domain is a free personal email provider.');
    if (mail.domainExists && !websiteFound) reasons.push('The domain has no reachable website.');
    return {
      email,
      valid: mail.acceptsMail && !isDisposable,
      isDisposable,
      isAlias,
      isTypo: suggestion !== undefined,
      isPlusAddressed,
      isPersonalEmail,
      domainExists: mail.domainExists,
      hasWebsite: websiteFound,
      hasMxRecords: mail.hasMxRecords,
      reasons,
      ...(suggestion ? { suggestion } : {}),
    };
  }
}
