import type { Resolver } from 'node:dns/promises';
import { createResolver, lookup } from '../dns/resolver';
import type { DomainRecord } from '../entities/domain';
import { recordMatches } from './records';

/** What DNS holds at a record's name for its type: CNAME targets, MX hosts, or TXT strings (chunks joined). */
function answersFor(resolver: Resolver, record: DomainRecord): Promise<string[]> {
  switch (record.type) {
    case 'CNAME':
      return resolver.resolveCname(record.name);
    case 'MX':
      return resolver.resolveMx(record.name).then((records) => records.map((mx) => mx.exchange));
    case 'TXT':
      return resolver.resolveTxt(record.name).then((records) => records.map((chunks) => chunks.join('')));
  }
}

/**
 * Looks every record up at once through the given `host:port` servers (the system's when empty)
 * and answers the records with their status: VERIFIED when DNS holds them, PENDING when DNS
 * answered without them. A lookup with no usable answer (timeout, SERVFAIL) leaves the status as
 * it was, so a resolver's hiccup never unverifies a record.
 */
export async function checkRecords(records: DomainRecord[], servers: string[], timeoutMs: number): Promise<DomainRecord[]> {
  const { resolver, release } = createResolver(servers, timeoutMs);
  try {
    return await Promise.all(
      records.map(async (record): Promise<DomainRecord> => {
        const result = await lookup(() => answersFor(resolver, record));
        if (result.outcome === 'failed') return record;
        return { ...record, status: recordMatches(record, result.records) ? 'VERIFIED' : 'PENDING' };
      }),
    );
  } finally {
    release();
  }
}
