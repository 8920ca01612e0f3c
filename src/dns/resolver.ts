import { Resolver } from 'node:dns/promises';

/** How a lookup ended: records or an empty answer (`found`), a name that does not exist, or no usable answer. */
export type LookupOutcome = 'found' | 'nxdomain' | 'failed';

export interface Lookup<T> {
  outcome: LookupOutcome;
  records: T[];
}

/** A resolver whose lookups still pending when its deadline passes are cancelled; `release` ends it early. */
export interface DeadlineResolver {
  resolver: Resolver;
  release(): void;
}

/**
 * A resolver on the given `host:port` servers (the system's when empty) for lookups that must
 * all be over within `timeoutMs`: each query gets a third of it with one retry, and whatever is
 * still pending at the deadline is cancelled (and fails).
 */
export function createResolver(servers: string[], timeoutMs: number): DeadlineResolver {
  const resolver = new Resolver({ timeout: Math.max(100, Math.floor(timeoutMs / 3)), tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  const timer = setTimeout(() => resolver.cancel(), timeoutMs);
  return { resolver, release: () => clearTimeout(timer) };
}

const NOT_FOUND = new Set(['ENOTFOUND', 'NXDOMAIN']);
const NO_DATA = new Set(['ENODATA']);

/** Runs one query and classifies its end; never throws. */
export async function lookup<T>(query: () => Promise<T[]>): Promise<Lookup<T>> {
  try {
    return { outcome: 'found', records: await query() };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (NO_DATA.has(code)) return { outcome: 'found', records: [] };
    return { outcome: NOT_FOUND.has(code) ? 'nxdomain' : 'failed', records: [] };
  }
}
