import type { EntityManager } from 'typeorm';
import { BillingLimits } from '../entities/billing';

/**
 * The billing query module: the project's caps, the current billing period and the usage
 * counted from the stored records. The period is the calendar month in UTC, computed by
 * Postgres from `now()` (the transaction's start), so a count and the rows the same
 * transaction wrote always agree on it.
 */

/** A capped billing category. */
export type BillingCategory = 'emails' | 'contacts';

/** The current billing period: [start, end). */
export interface BillingPeriod {
  start: Date;
  end: Date;
}

/** The first instant of the current UTC month, as SQL. */
const PERIOD_START = `(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

/** Email statuses that do not use up the allowance: nothing was or will be sent. */
export const UNCOUNTED_EMAIL_STATUSES = ['SUPPRESSED', 'SKIPPED', 'FAILED'] as const;

/** The project's caps (by primary key); null when none were ever set. */
export function findLimits(manager: EntityManager, projectId: string): Promise<BillingLimits | null> {
  return manager.findOneBy(BillingLimits, { projectId });
}

/** Creates or changes the project's caps; a category left undefined keeps its value. */
export async function saveLimits(manager: EntityManager, projectId: string, changes: Partial<Record<BillingCategory, number | null>>): Promise<void> {
  await manager.query(
    `INSERT INTO billing_limits (project_id, emails, contacts) VALUES ($1, $3, $5)
     ON CONFLICT (project_id) DO UPDATE
        SET emails = CASE WHEN $2 THEN EXCLUDED.emails ELSE billing_limits.emails END,
            contacts = CASE WHEN $4 THEN EXCLUDED.contacts ELSE billing_limits.contacts END,
            updated_at = now()`,
    [projectId, changes.emails !== undefined, changes.emails ?? null, changes.contacts !== undefined, changes.contacts ?? null],
  );
}

/** The current billing period. */
export async function currentPeriod(manager: EntityManager): Promise<BillingPeriod> {
  const [row]: { start: Date; end: Date }[] = await manager.query(`SELECT ${PERIOD_START} AS start, ${PERIOD_START} + interval '1 month' AS "end"`);
  return row;
}

/**
 * Emails of the project created in the current period that were or will be sent (every
 * source; a QUEUED one holds its slot). Index emails_project_created_idx.
 */
export async function countEmails(manager: EntityManager, projectId: string): Promise<number> {
  const [row]: { n: number }[] = await manager.query(
    `SELECT count(*)::int AS n FROM emails
      WHERE project_id = $1 AND created_at >= ${PERIOD_START} AND created_at < ${PERIOD_START} + interval '1 month'
        AND status <> ALL($2::text[])`,
    [projectId, UNCOUNTED_EMAIL_STATUSES],
  );
  return row.n;
}

/** Contacts the project stores now. */
export async function countContacts(manager: EntityManager, projectId: string): Promise<number> {
  const [row]: { n: number }[] = await manager.query('SELECT count(*)::int AS n FROM contacts WHERE project_id = $1', [projectId]);
  return row.n;
}

/** The usage of one category now. */
export function countUsage(manager: EntityManager, projectId: string, category: BillingCategory): Promise<number> {
  return category === 'emails' ? countEmails(manager, projectId) : countContacts(manager, projectId);
}

/**
 * Serialises the transactions that add to one category of one project until they end
 * (transaction-level advisory lock): a count taken after it sees every such write committed before.
 */
export async function lockCategory(manager: EntityManager, projectId: string, category: BillingCategory): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`herald.billing.${category}:${projectId}`]);
}
