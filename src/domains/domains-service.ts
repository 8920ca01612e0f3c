import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { Domain, DomainRecord, DomainStatus } from '../entities/domain';
import { ApiError, conflict, notFound, validationError } from '../http/errors';
import { isUuid } from '../http/validate';
import { logger } from '../logger';
import { checkRecords } from './dns-check';
import * as queries from './domains-queries';
import { mailFromAndDmarcRecords, normaliseDomain, recordRole, statusAfterCheck } from './records';
import { createSenderIdentities, ForeignIdentityError, SenderIdentityError, type SenderIdentities } from './sender-identities';
import { domainEvent } from '../webhooks/source-events';
import { emitWebhookEvents } from '../webhooks/webhook-events';

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

/** What one background batch did (`lapsed`: claims removed after CLAIM_LAPSE_DAYS PENDING); `next` is the id to continue after, null when no pending domain is left. */
export interface DomainBatchResult {
  checked: number;
  verified: number;
  lapsed: number;
  next: string | null;
}

export interface DomainsServiceOptions {
  identities: SenderIdentities;
  /** `host:port` DNS servers for the checks; empty uses the system's. */
  dnsServers: string[];
  /** The SES region whose feedback endpoint the MAIL FROM MX names. */
  sesRegion: string;
}

/**
 * Sender domains: registered with the transport's identities, verified over DNS, one project each.
 * A claim (domain row) owns its identity: removing the claim (deleting the domain or its project,
 * or the claim lapsing after CLAIM_LAPSE_DAYS PENDING) removes the identity, and a new claim never
 * inherits one (see SesSenderIdentities.register).
 */
export class DomainsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: DomainsServiceOptions,
  ) {}

  /**
   * Claims a domain for the project and answers the DNS records its owner publishes; 409 when a
   * project has it (a lapsed claim is removed first). The claim row is written first and the identity
   * registered under it, in one transaction: a concurrent claim waits for it, a failure leaves nothing.
   */
  async add(projectId: string, input: string): Promise<Domain> {
    const name = normaliseDomain(input);
    if (!name) {
      throw validationError([
        { field: 'domain', code: 'invalid_string', message: 'domain must be a hostname such as example.com', received: input },
      ]);
    }
    await this.release({ domain: name, lapsed: true });
    return this.dataSource.transaction(async (manager) => {
      const id = await queries.insertClaim(manager, projectId, name);
      if (!id) throw domainTaken(name);
      const identityRecords = await this.provider(() => this.options.identities.register(name, id));
      await queries.setRecords(manager, id, [...identityRecords, ...mailFromAndDmarcRecords(name, this.options.sesRegion)]);
      return queries.claimedDomain(manager, id);
    });
  }

  /** The project's domains, verified and pending, newest first. */
  list(projectId: string): Promise<Domain[]> {
    return queries.projectDomains(this.dataSource.manager, projectId);
  }

  /** A domain of the project; 404 otherwise. */
  async get(projectId: string, id: string): Promise<Domain> {
    const domain = isUuid(id) ? await queries.projectDomain(this.dataSource.manager, projectId, id) : null;
    if (!domain) throw notFound('Domain');
    return domain;
  }

  /** Checks a domain of the project over DNS now and answers it as updated. */
  async verify(projectId: string, id: string): Promise<Domain> {
    return this.check(await this.get(projectId, id));
  }

  /** Deletes a domain of the project with its identity. */
  async remove(projectId: string, id: string): Promise<void> {
    await this.release({ id: (await this.get(projectId, id)).id });
  }

  /** Deletes every domain of the project with its identity, before the project itself is deleted. */
  async removeAll(projectId: string): Promise<void> {
    for (const domain of await this.list(projectId)) await this.release({ id: domain.id });
  }

  /**
   * Checks up to `limit` PENDING domains (of every project) whose id follows `after`, in id order,
   * a few at a time, and removes the claims among them that lapsed. The background
   * `checkPendingDomains` workflow pages through them with it; a retried batch does the rest.
   */
  async checkPendingBatch(after: string | null, limit: number): Promise<DomainBatchResult> {
    const domains = await queries.pendingPage(this.dataSource.manager, after, limit);
    const result: DomainBatchResult = { checked: domains.length, verified: 0, lapsed: 0, next: domains.length === limit ? domains[domains.length - 1].id : null };
    for (let start = 0; start < domains.length; start += CHECK_CONCURRENCY) {
      const slice = domains.slice(start, start + CHECK_CONCURRENCY);
      await Promise.all(
        slice.map(async ({ id, lapsed }) => {
          if (lapsed) {
            if (await this.release({ id, lapsed })) result.lapsed += 1;
            return;
          }
          const domain = await queries.pendingDomain(this.dataSource.manager, id);
          if (domain && (await this.check(domain)).status === 'VERIFIED') result.verified += 1;
        }),
      );
    }
    return result;
  }

  /**
   * Removes a claim: locks its row, unregisters its identity (a failure is a 503 and keeps the
   * claim, so it can be tried again), then deletes the row. Answers whether there was one to remove.
   */
  private async release(target: queries.ClaimTarget): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const claim = await queries.lockClaim(manager, target);
      if (!claim) return false;
      await this.provider(() => this.options.identities.remove(claim.domain));
      await queries.deleteClaim(manager, claim.id);
      if (target.lapsed) {
        const { id, domain, projectId } = claim;
        logger.info({ id, domain, projectId, days: queries.CLAIM_LAPSE_DAYS }, 'domain claim lapsed: PENDING too long, removed with its identity');
        const reason = `Not verified within ${queries.CLAIM_LAPSE_DAYS} days: the claim lapsed and was removed`;
        await emitWebhookEvents(manager, projectId, [domainEvent('domain.failed', claim, `domain:${id}:lapsed`, reason)]);
      }
      return true;
    });
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
    const result = { records, status, verifiedAt, lastCheckedAt: new Date() };
    const stored = await this.storeCheck(domain, result);
    const checked = Object.assign(domain, result);
    if (stored) return checked;
    return (await queries.domainById(this.dataSource.manager, domain.id)) ?? checked;
  }

  /**
   * Stores a check's result (queries.storeCheck); one that verifies the domain, or finds a verified
   * domain's identity records gone, emits `domain.verified` or `domain.failed` in the same transaction.
   */
  private async storeCheck(domain: Domain, result: queries.CheckResult): Promise<boolean> {
    const verified = (status: DomainStatus) => status === 'VERIFIED';
    if (verified(domain.status) === verified(result.status)) return queries.storeCheck(this.dataSource.manager, domain.id, domain.lastCheckedAt, result);
    const type = verified(result.status) ? 'domain.verified' : 'domain.failed';
    const reason = verified(result.status) ? undefined : 'A DNS record that identifies the domain is no longer found; sending from it stops until it is verified again';
    return this.dataSource.transaction(async (manager) => {
      if (!(await queries.storeCheck(manager, domain.id, domain.lastCheckedAt, result))) return false;
      const key = `domain:${domain.id}:${type}:${result.lastCheckedAt.toISOString()}`;
      await emitWebhookEvents(manager, domain.projectId, [domainEvent(type, { ...domain, ...result }, key, reason)]);
      return true;
    });
  }

  /** Runs a call to the identity provider; its failure is a 503 the client may retry, a foreign identity a 409. */
  private async provider<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ForeignIdentityError) throw foreignIdentity(err.domain);
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
  conflict(
    `The domain ${domain} has already been added to a project; a claim that stays PENDING for ${queries.CLAIM_LAPSE_DAYS} days lapses, and it may be added then`,
    'DOMAIN_TAKEN',
    { domain },
  );

const foreignIdentity = (domain: string) =>
  conflict(
    `The email provider already has an identity for ${domain} that Herald did not create, and Herald will not take it over. ` +
      `Ask the operator of this Herald to delete it from SES (aws sesv2 delete-email-identity --email-identity ${domain}) if nothing uses it, then add the domain again`,
    'DOMAIN_IDENTITY_EXISTS',
    { domain },
  );
