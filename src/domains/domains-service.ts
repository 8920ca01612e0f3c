import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import { Domain, type DomainRecord } from '../entities/domain';
import { ApiError, conflict, notFound, validationError } from '../http/errors';
import { isUuid } from '../http/validate';
import { checkRecords } from './dns-check';
import { mailFromAndDmarcRecords, normaliseDomain, recordRole, statusAfterCheck } from './records';
import { createSenderIdentities, SenderIdentityError, type SenderIdentities } from './sender-identities';

/** How long the lookups of one domain check may take in all. */
const DNS_TIMEOUT_MS = 5000;

/** How many domains a background batch checks at once. */
const CHECK_CONCURRENCY = 10;

/** A domain as the API shows it. */
export function domainView(domain: Domain) {
  return {
    id: domain.id,
    domain: domain.domain,
    status: domain.status,
    records: domain.records,
    createdAt: domain.createdAt,
    verifiedAt: domain.verifiedAt,
  };
}

/** What one background batch did; `next` is the id to continue after, null when no pending domain is left. */
export interface DomainBatchResult {
  checked: number;
  verified: number;
  next: string | null;
}

export interface DomainsServiceOptions {
  identities: SenderIdentities;
  /** `host:port` DNS servers for the checks; empty uses the system's. */
  dnsServers: string[];
  /** The SES region whose feedback endpoint the MAIL FROM MX names. */
  sesRegion: string;
}

/** Sender domains: registered with the transport's identities, verified over DNS, one project each. */
export class DomainsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: DomainsServiceOptions,
  ) {}

  /** Claims a domain for the project and answers the DNS records its owner publishes; 409 when any project has it. */
  async add(projectId: string, input: string): Promise<Domain> {
    const name = normaliseDomain(input);
    if (!name) {
      throw validationError([
        { field: 'domain', code: 'invalid_string', message: 'domain must be a hostname such as example.com', received: input },
      ]);
    }
    const taken = async () => (await this.dataSource.query(`SELECT 1 FROM domains WHERE domain = $1`, [name])).length > 0;
    if (await taken()) throw domainTaken(name);
    const identityRecords = await this.provider(() => this.options.identities.register(name));
    const records: DomainRecord[] = [...identityRecords, ...mailFromAndDmarcRecords(name, this.options.sesRegion)];
    const inserted: { id: string }[] = await this.dataSource.query(
      `INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'PENDING', $3)
       ON CONFLICT (domain) DO NOTHING RETURNING id`,
      [projectId, name, JSON.stringify(records)],
    );
    // Claimed by a concurrent request: the identity is now that project's, so it is left in place.
    if (inserted.length === 0) throw domainTaken(name);
    return this.dataSource.getRepository(Domain).findOneByOrFail({ id: inserted[0].id });
  }

  /** The project's domains, verified and pending, newest first. */
  list(projectId: string): Promise<Domain[]> {
    return this.dataSource.getRepository(Domain).find({ where: { projectId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** A domain of the project; 404 otherwise. */
  async get(projectId: string, id: string): Promise<Domain> {
    const domain = isUuid(id) ? await this.dataSource.getRepository(Domain).findOneBy({ projectId, id }) : null;
    if (!domain) throw notFound('Domain');
    return domain;
  }

  /** Checks a domain of the project over DNS now and answers it as updated. */
  async verify(projectId: string, id: string): Promise<Domain> {
    return this.check(await this.get(projectId, id));
  }

  /** Unregisters the domain from the transport's identities, then deletes it. */
  async remove(projectId: string, id: string): Promise<void> {
    const domain = await this.get(projectId, id);
    await this.provider(() => this.options.identities.remove(domain.domain));
    await this.dataSource.getRepository(Domain).delete({ id: domain.id });
  }

  /**
   * Checks up to `limit` PENDING domains (of every project) whose id follows `after`, in id order,
   * a few at a time. The background `checkPendingDomains` workflow pages through them with it.
   */
  async checkPendingBatch(after: string | null, limit: number): Promise<DomainBatchResult> {
    const domains = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM domains WHERE status = 'PENDING' AND ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`,
      [after, limit],
    );
    const repository = this.dataSource.getRepository(Domain);
    let verified = 0;
    for (let start = 0; start < domains.length; start += CHECK_CONCURRENCY) {
      const slice = domains.slice(start, start + CHECK_CONCURRENCY);
      await Promise.all(
        slice.map(async ({ id }) => {
          const domain = await repository.findOneBy({ id, status: 'PENDING' });
          if (domain && (await this.check(domain)).status === 'VERIFIED') verified += 1;
        }),
      );
    }
    return { checked: domains.length, verified, next: domains.length === limit ? domains[domains.length - 1].id : null };
  }

  /**
   * Looks the domain's records up and stores what was found, its status (see `statusAfterCheck`)
   * and `verifiedAt` (kept while it stays verified, cleared when it falls back to PENDING). On SES,
   * identity records SES reports verified (DKIM `SUCCESS`) count as found. When another check
   * stored its result meanwhile (`last_checked_at` moved), that one stands and is answered.
   */
  private async check(domain: Domain): Promise<Domain> {
    const [found, providerVerified] = await Promise.all([
      checkRecords(domain.records, this.options.dnsServers, DNS_TIMEOUT_MS),
      this.options.identities.providerVerified(domain.domain),
    ]);
    const records = found.map(
      (record): DomainRecord =>
        providerVerified && recordRole(record) === 'identity' ? { ...record, status: 'VERIFIED' } : record,
    );
    const status = statusAfterCheck(domain.status, records);
    let verifiedAt: Date | null = null;
    if (status === 'VERIFIED') verifiedAt = (domain.status === 'VERIFIED' && domain.verifiedAt) || new Date();
    const lastCheckedAt = new Date();
    const [, stored] = (await this.dataSource.query(
      `UPDATE domains SET records = $2, status = $3, verified_at = $4, last_checked_at = $5
        WHERE id = $1 AND last_checked_at IS NOT DISTINCT FROM $6`,
      [domain.id, JSON.stringify(records), status, verifiedAt, lastCheckedAt, domain.lastCheckedAt],
    )) as [unknown, number];
    const checked = Object.assign(domain, { records, status, verifiedAt, lastCheckedAt });
    if (stored > 0) return checked;
    return (await this.dataSource.getRepository(Domain).findOneBy({ id: domain.id })) ?? checked;
  }

  /** Runs a call to the identity provider; its failure is a 503 the client may retry. */
  private async provider<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof SenderIdentityError)) throw err;
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The email provider could not be reached; try again shortly', {
        details: { reason: err.message },
      });
    }
  }
}

/** The domains service of the configured transport, DNS servers and SES region (`us-east-1` when unset). */
export function createDomainsService(config: Config, dataSource: DataSource): DomainsService {
  return new DomainsService(dataSource, {
    identities: createSenderIdentities(config),
    dnsServers: config.dnsServers,
    sesRegion: config.sesRegion ?? 'us-east-1',
  });
}

const domainTaken = (domain: string) =>
  conflict(`The domain ${domain} has already been added to a project`, 'DOMAIN_TAKEN', { domain });
