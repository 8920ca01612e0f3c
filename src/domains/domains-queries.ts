import type { EntityManager } from 'typeorm';
import { Domain, type DomainRecord, type DomainStatus } from '../entities/domain';

/** How long a domain may stay PENDING before its claim lapses and another project may claim it. */
export const CLAIM_LAPSE_DAYS = 7;

const LAPSED = `status = 'PENDING' AND pending_since < now() - make_interval(days => ${CLAIM_LAPSE_DAYS})`;

/** Inserts a PENDING claim of the domain, its records to come; undefined when a project has the domain. */
export async function insertClaim(manager: EntityManager, projectId: string, domain: string): Promise<string | undefined> {
  const rows: { id: string }[] = await manager.query(
    `INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'PENDING', '[]')
     ON CONFLICT (domain) DO NOTHING RETURNING id`,
    [projectId, domain],
  );
  return rows[0]?.id;
}

/** Stores the records a new claim's owner publishes. */
export async function setRecords(manager: EntityManager, id: string, records: DomainRecord[]): Promise<void> {
  await manager.query('UPDATE domains SET records = $2 WHERE id = $1', [id, JSON.stringify(records)]);
}

/** Which claim `lockClaim` takes: by id or by domain, and with `lapsed` only one PENDING for CLAIM_LAPSE_DAYS. */
export type ClaimTarget = ({ id: string } | { domain: string }) & { lapsed?: boolean };

/** A claim as `lockClaim` answers it. */
export type LockedClaim = Pick<Domain, 'id' | 'domain' | 'projectId' | 'status' | 'records'>;

/** Locks a claim for the rest of the transaction and answers it; undefined when there is none (or it has not lapsed). */
export async function lockClaim(manager: EntityManager, target: ClaimTarget): Promise<LockedClaim | undefined> {
  const [column, value] = 'id' in target ? ['id', target.id] : ['domain', target.domain];
  const rows: LockedClaim[] = await manager.query(
    `SELECT id, domain, project_id AS "projectId", status, records FROM domains WHERE ${column} = $1 ${target.lapsed ? `AND ${LAPSED}` : ''} FOR UPDATE`,
    [value],
  );
  return rows[0];
}

/** Deletes a claim. */
export async function deleteClaim(manager: EntityManager, id: string): Promise<void> {
  await manager.query('DELETE FROM domains WHERE id = $1', [id]);
}

/** Up to `limit` PENDING domains (of every project) whose id follows `after`, in id order, with whether each has lapsed. */
export function pendingPage(manager: EntityManager, after: string | null, limit: number): Promise<{ id: string; lapsed: boolean }[]> {
  return manager.query(
    `SELECT id, ${LAPSED} AS lapsed FROM domains WHERE status = 'PENDING' AND ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`,
    [after, limit],
  );
}

/** What a check found, as stored. */
export interface CheckResult {
  records: DomainRecord[];
  status: DomainStatus;
  verifiedAt: Date | null;
  lastCheckedAt: Date;
}

/**
 * Stores a check's result unless another check stored one since `checkedBefore` was read (answers
 * false then). A domain falling back to PENDING starts its `pending_since` afresh.
 */
export async function storeCheck(manager: EntityManager, id: string, checkedBefore: Date | null, result: CheckResult): Promise<boolean> {
  const [, stored] = (await manager.query(
    `UPDATE domains SET records = $2, status = $3, verified_at = $4, last_checked_at = $5,
            pending_since = CASE WHEN $3 = 'PENDING' AND status <> 'PENDING' THEN now() ELSE pending_since END
      WHERE id = $1 AND last_checked_at IS NOT DISTINCT FROM $6`,
    [id, JSON.stringify(result.records), result.status, result.verifiedAt, result.lastCheckedAt, checkedBefore],
  )) as [unknown, number];
  return stored > 0;
}

/** The project's domains, newest first. */
export function projectDomains(manager: EntityManager, projectId: string): Promise<Domain[]> {
  return manager.find(Domain, { where: { projectId }, order: { createdAt: 'DESC', id: 'DESC' } });
}

/** A domain of the project; null when the project has none with that id. */
export function projectDomain(manager: EntityManager, projectId: string, id: string): Promise<Domain | null> {
  return manager.findOneBy(Domain, { projectId, id });
}

/** A domain by id; null when there is none. */
export function domainById(manager: EntityManager, id: string): Promise<Domain | null> {
  return manager.findOneBy(Domain, { id });
}

/** A claim just written in this transaction, by id. */
export function claimedDomain(manager: EntityManager, id: string): Promise<Domain> {
  return manager.findOneByOrFail(Domain, { id });
}

/** A domain by id while it is PENDING; null otherwise. */
export function pendingDomain(manager: EntityManager, id: string): Promise<Domain | null> {
  return manager.findOneBy(Domain, { id, status: 'PENDING' });
}

/**
 * SQL that is true when one of the domains in the text array `domainsColumn` is a VERIFIED
 * domain of the project in `projectColumn`.
 */
export const verifiedDomainSql = (projectColumn: string, domainsColumn: string) =>
  `EXISTS (SELECT 1 FROM domains d WHERE d.project_id = ${projectColumn} AND d.status = 'VERIFIED' AND d.domain = ANY(${domainsColumn}))`;

/** Whether one of `domains` is a VERIFIED domain of the project. */
export async function hasVerifiedDomain(manager: EntityManager, projectId: string, domains: string[]): Promise<boolean> {
  const [row]: { verified: boolean }[] = await manager.query(`SELECT ${verifiedDomainSql('$1::uuid', '$2::text[]')} AS verified`, [projectId, domains]);
  return row.verified;
}
