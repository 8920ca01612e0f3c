import type Stripe from 'stripe';
import { isUuid } from '../http/validate';
import type { SubscriptionState } from './billing-queries';

/** What one Stripe event asks of the billing accounts. */
export type BillingChange =
  | { kind: 'checkout'; projectId: string; customerId: string; subscriptionId: string | null }
  | { kind: 'subscription'; state: SubscriptionState };

/** Fetches a subscription's current state from Stripe. */
export type SubscriptionLookup = (subscriptionId: string) => Promise<Stripe.Subscription>;

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);

const fromUnix = (seconds: number | null | undefined): Date | null => (seconds ? new Date(seconds * 1000) : null);

/**
 * A subscription's state. API versions from 2025-03-31 keep the billing period on each
 * subscription item; older ones on the subscription itself.
 */
export function subscriptionState(subscription: Stripe.Subscription): SubscriptionState {
  const item = subscription.items?.data[0];
  const legacy = subscription as { current_period_end?: number };
  return {
    subscriptionId: subscription.id,
    customerId: idOf(subscription.customer)!,
    status: subscription.status,
    priceId: item?.price?.id ?? null,
    currentPeriodEnd: fromUnix(item?.current_period_end ?? legacy.current_period_end),
  };
}

/** The subscription an invoice bills: `parent.subscription_details` now, `subscription` in older API versions. */
function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const legacy = invoice as { subscription?: string | { id: string } | null };
  return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(legacy.subscription);
}

/** The project a completed subscription checkout was for (Herald sets `client_reference_id`). */
function checkoutChange(session: Stripe.Checkout.Session): BillingChange | undefined {
  const projectId = session.client_reference_id ?? session.metadata?.projectId;
  const customerId = idOf(session.customer);
  if (session.mode !== 'subscription' || !projectId || !isUuid(projectId) || !customerId) return undefined;
  return { kind: 'checkout', projectId, customerId, subscriptionId: idOf(session.subscription) };
}

/**
 * What an event changes, or undefined for events Herald does not act on. Invoice events
 * carry no subscription status, so the subscription is fetched as it is now: its state
 * is then right whatever order the events arrive in.
 */
export async function billingChange(event: Stripe.Event, lookup: SubscriptionLookup): Promise<BillingChange | undefined> {
  switch (event.type) {
    case 'checkout.session.completed':
      return checkoutChange(event.data.object);
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return { kind: 'subscription', state: subscriptionState(event.data.object) };
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const subscriptionId = invoiceSubscriptionId(event.data.object);
      return subscriptionId ? { kind: 'subscription', state: subscriptionState(await lookup(subscriptionId)) } : undefined;
    }
    default:
      return undefined;
  }
}
