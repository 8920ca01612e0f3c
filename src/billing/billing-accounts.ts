import type { EntityManager } from 'typeorm';
import { BillingAccount } from '../entities/billing';

/** A subscription as the payment provider last described it. */
export interface SubscriptionState {
  subscriptionId: string;
  customerId: string;
  status: string;
  priceId: string | null;
  currentPeriodEnd: Date | null;
}

/** Subscription statuses that never change again: a project in one of them may subscribe afresh. */
const ENDED = `('canceled', 'incomplete_expired')`;

/** Whether the account holds a subscription that has not ended (a new checkout would pay twice). */
export function hasLiveSubscription(account: BillingAccount): boolean {
  return account.subscriptionId !== null && !['canceled', 'incomplete_expired'].includes(account.subscriptionStatus ?? '');
}

/** The project's billing account, if it ever checked out. */
export function findAccount(manager: EntityManager, projectId: string): Promise<BillingAccount | null> {
  return manager.findOneBy(BillingAccount, { projectId });
}

/** Stores the project's customer unless one is stored already; returns the stored customer id. */
export async function storeCustomer(manager: EntityManager, projectId: string, customerId: string): Promise<string> {
  await manager.query(
    'INSERT INTO billing_accounts (project_id, customer_id) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING',
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
