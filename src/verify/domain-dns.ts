import { createResolver, lookup, type Lookup } from '../dns/resolver';

/** What DNS says about a mail domain; both lookups run at once and the address one is available early. */
export interface DomainDns {
  /** Mail exchanges, null MX (RFC 7505: "accepts no mail") included as an empty exchange. */
  mx: Promise<Lookup<string>>;
  /** A then AAAA addresses. */
  addresses: Promise<Lookup<string>>;
}

/** Several lookups of one name as one: found if any was, else NXDOMAIN if any said so, else failed. */
function combine<T>(lookups: Lookup<T>[]): Lookup<T> {
  const records = lookups.flatMap((result) => result.records);
  if (lookups.some((result) => result.outcome === 'found')) return { outcome: 'found', records };
  if (lookups.some((result) => result.outcome === 'nxdomain')) return { outcome: 'nxdomain', records };
  return { outcome: 'failed', records };
}

/**
 * Looks up a domain's MX and address records through the given servers (system resolvers when empty);
 * whatever has not answered within `timeoutMs` counts as failed.
 */
export function lookupDomain(domain: string, servers: string[], timeoutMs: number): DomainDns {
  const { resolver, release } = createResolver(servers, timeoutMs);
  const mx = lookup(() => resolver.resolveMx(domain)).then((result) => ({
    ...result,
    records: result.records.map((record) => record.exchange.replace(/\.$/, '')),
  }));
  const addresses = Promise.all([lookup(() => resolver.resolve4(domain)), lookup(() => resolver.resolve6(domain))]).then(
    combine,
  );
  void Promise.all([mx, addresses]).then(release);
  return { mx, addresses };
}
