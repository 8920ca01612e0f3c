import { Resolver } from 'node:dns/promises';

/** How a lookup ended: records or an empty answer (`found`), a name that does not exist, or no usable answer. */
export type LookupOutcome = 'found' | 'nxdomain' | 'failed';

export interface Lookup<T> {
  outcome: LookupOutcome;
  records: T[];
}

/** What DNS says about a mail domain; both lookups run at once and the address one is available early. */
export interface DomainDns {
  /** Mail exchanges, null MX (RFC 7505: "accepts no mail") included as an empty exchange. */
  mx: Promise<Lookup<string>>;
  /** A then AAAA addresses. */
  addresses: Promise<Lookup<string>>;
}

const NOT_FOUND = new Set(['ENOTFOUND', 'NXDOMAIN']);
const NO_DATA = new Set(['ENODATA']);

async function lookup<T>(query: () => Promise<T[]>): Promise<Lookup<T>> {
  try {
    return { outcome: 'found', records: await query() };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (NO_DATA.has(code)) return { outcome: 'found', records: [] };
    return { outcome: NOT_FOUND.has(code) ? 'nxdomain' : 'failed', records: [] };
  }
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
  const resolver = new Resolver({ timeout: Math.max(100, Math.floor(timeoutMs / 3)), tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  const timer = setTimeout(() => resolver.cancel(), timeoutMs);
  const mx = lookup(() => resolver.resolveMx(domain)).then((result) => ({
    ...result,
    records: result.records.map((record) => record.exchange.replace(/\.$/, '')),
  }));
  const addresses = Promise.all([lookup(() => resolver.resolve4(domain)), lookup(() => resolver.resolve6(domain))]).then(
    combine,
  );
  void Promise.all([mx, addresses]).then(() => clearTimeout(timer));
  return { mx, addresses };
}
