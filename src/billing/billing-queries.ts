import type { EntityManager } from 'typeorm';
import { BillingAccount, BillingLimits } from '../entities/billing';

/**
 * The billing query module: the project's caps, the current billing period, the usage
 * counted from the stored records, and the billing account as Stripe's events keep it.
 * The period is the calendar month in UTC, computed by Postgres from `now()` (the
 * transaction's start), so a count and the rows the same transaction wrote always agree on it.
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
export const UNCOUNTED_EMAIL_STATUSES = ['SUPPRESSED', 'SKIPPED', 'FAILED', 'CANCELLED'] as const;

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

/** A subscription as the payment provider last described it. */
export interface SubscriptionState {
  subscriptionId: string;
  customerId: string;
  status: string;
  priceId: string | null;
  currentPeriodEnd: Date | null;
}

/** Subscription statuses that never change again: a project in one of them may subscribe afresh. */
export const ENDED_SUBSCRIPTION_STATUSES: readonly string[] = ['canceled', 'incomplete_expired'];

/** ENDED_SUBSCRIPTION_STATUSES as an SQL list. */
const ENDED = `(${ENDED_SUBSCRIPTION_STATUSES.map((status) => `'${status}'`).join(', ')})`;

/** The project's billing account, if it ever checked out. */
export function findAccount(manager: EntityManager, projectId: string): Promise<BillingAccount | null> {
  return manager.findOneBy(BillingAccount, { projectId });
}

/**
 * Stores the project's customer unless one is stored already; returns the stored customer id.
 * Concurrent first checkouts store the same row (Stripe answers both with one customer), which
 * conflicts on `customer_id UNIQUE` as well as on the key. ON CONFLICT names no index so that
 * both are arbiters: with only `(project_id)` named, an insert that passed the conflict check
 * before the other's row reached the key index failed on the customer_id index (23505, a 500).
 */
export async function storeCustomer(manager: EntityManager, projectId: string, customerId: string): Promise<string> {
  await manager.query(
    'INSERT INTO billing_accounts (project_id, customer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [projectId, customerId],
  );
  return (await manager.findOneByOrFail(BillingAccount, { projectId })).customerId;
}

/** Records a webhook event; false when it was recorded before (a redelivery, to be ignored). */
export async function recordReceipt(manager: EntityManager, eventId: string, type: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    'INSERT INTO billing_webhook_events (id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id',
    [eventId, type],
  );
  return rows.length > 0;
}

/**
 * Links a completed checkout's customer and subscription to the project. A project whose
 * subscription has not ended keeps it (the link then changes nothing); a new subscription
 * starts with an unknown status until its own event reports it. False when nothing changed.
 */
export async function linkCheckout(
  manager: EntityManager,
  projectId: string,
  customerId: string,
  subscriptionId: string | null,
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `INSERT INTO billing_accounts (project_id, customer_id, subscription_id)
     SELECT id, $2, $3 FROM projects WHERE id = $1
     ON CONFLICT (project_id) DO UPDATE SET
       customer_id = EXCLUDED.customer_id, subscription_id = EXCLUDED.subscription_id,
       subscription_status = NULL, price_id = NULL, current_period_end = NULL, updated_at = now()
     WHERE billing_accounts.subscription_id IS NULL OR billing_accounts.subscription_status IN ${ENDED}
     RETURNING project_id`,
    [projectId, customerId, subscriptionId],
  );
  return rows.length > 0;
}

/**
 * Applies a subscription's state to the account of its customer. Events may arrive out of
 * order, so an ended subscription is never revived, and a late event about another
 * subscription never replaces one that has not ended. False when nothing changed.
 */
export async function applySubscription(manager: EntityManager, state: SubscriptionState): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `UPDATE billing_accounts
        SET subscription_id = $2, subscription_status = $3, price_id = $4, current_period_end = $5, updated_at = now()
      WHERE customer_id = $1
        AND CASE WHEN subscription_id = $2 THEN coalesce(subscription_status, '') NOT IN ${ENDED}
                 ELSE subscription_id IS NULL OR subscription_status IN ${ENDED} END
      RETURNING project_id`,
    [state.customerId, state.subscriptionId, state.status, state.priceId, state.currentPeriodEnd],
  );
  return rows.length > 0;
}
