import Stripe from 'stripe';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { BillingAccount } from '../entities/billing';
import type { MemberRole } from '../entities/project-member';
import { ApiError, badRequest, validationError } from '../http/errors';
import { requireManager } from '../projects/roles';
import {
  applySubscription,
  ENDED_SUBSCRIPTION_STATUSES,
  findAccount,
  linkCheckout,
  recordReceipt,
  storeCustomer,
} from './billing-queries';
import { billingChange } from './stripe-events';

export interface CheckoutRequest {
  priceId?: string;
  successUrl?: string;
  cancelUrl?: string;
}

export interface PortalRequest {
  returnUrl?: string;
}

/** What the webhook did with one event. */
export interface WebhookResult {
  eventId: string;
  type: string;
  outcome: 'applied' | 'unchanged' | 'duplicate' | 'ignored';
}

/** Stripe lists at most 100 objects per page; the dashboard shows the latest 100 invoices. */
const INVOICE_LIMIT = 100;

const billingDisabled = (message: string) =>
  new ApiError(501, 'BILLING_DISABLED', message, {
    suggestion: 'Set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to enable billing.',
  });

const invalidSignature = (message: string) => new ApiError(400, 'INVALID_SIGNATURE', message);

/** Awaits a Stripe call; a refusal or failure there answers 502 `BILLING_PROVIDER_ERROR` with Stripe's message. */
async function fromStripe<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeError)) throw err;
    throw new ApiError(502, 'BILLING_PROVIDER_ERROR', `Stripe: ${err.message}`, {
      details: { type: err.rawType ?? err.type, ...(err.code ? { code: err.code } : {}) },
    });
  }
}

/** Whether the account holds a subscription that has not ended (a new checkout would pay twice). */
function hasLiveSubscription(account: BillingAccount): boolean {
  return account.subscriptionId !== null && !ENDED_SUBSCRIPTION_STATUSES.includes(account.subscriptionStatus ?? '');
}

const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();

/** An invoice as the dashboard shows it (amounts in the currency's smallest unit). */
function invoiceView(invoice: Stripe.Invoice) {
  return {
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    currency: invoice.currency,
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    total: invoice.total,
    createdAt: isoTime(invoice.created),
    periodStart: isoTime(invoice.period_start),
    periodEnd: isoTime(invoice.period_end),
    hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
    invoicePdf: invoice.invoice_pdf ?? null,
  };
}

/** Verifies the `Stripe-Signature` of a webhook body and parses the event it carries. */
function verifiedEvent(stripe: Stripe, payload: Buffer, signature: string | undefined, secret: string): Stripe.Event {
  if (!signature) throw invalidSignature('The Stripe-Signature header is missing');
  try {
    return stripe.webhooks.constructEvent(payload, signature, secret);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw invalidSignature('The Stripe-Signature does not match the body (or is too old)');
    }
    throw badRequest('The body is not a Stripe event');
  }
}

/**
 * Project billing through Stripe: subscription checkout, the customer portal, invoices, and
 * the webhook that keeps each project's `billing_accounts` row as Stripe reports it.
 * Without a Stripe client (no STRIPE_SECRET_KEY) billing is disabled.
 */
export class PaymentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Config,
    private readonly stripe: Stripe | undefined,
  ) {}

  /** Creates a subscription Checkout Session for the project, creating its Stripe customer the first time. */
  async checkout(projectId: string, role: MemberRole, request: CheckoutRequest) {
    requireManager(role);
    const stripe = this.client();
    const price = request.priceId ?? this.config.stripePriceId;
    if (!price) {
      throw validationError([
        { field: 'priceId', code: 'required', message: 'priceId is required: no default price (STRIPE_PRICE_ID) is configured' },
      ]);
    }
    const account = await findAccount(this.dataSource.manager, projectId);
    if (account && hasLiveSubscription(account)) {
      throw new ApiError(409, 'ALREADY_SUBSCRIBED', 'The project already has a subscription', {
        suggestion: 'Change or cancel it in the billing portal: POST /users/@me/projects/{id}/billing-portal.',
      });
    }
    const customer = account?.customerId ?? (await this.createCustomer(stripe, projectId));
    const billingPage = this.billingPage(projectId);
    const session = await fromStripe(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: projectId,
        line_items: [{ price, quantity: 1 }],
        success_url: request.successUrl ?? `${billingPage}?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: request.cancelUrl ?? `${billingPage}?checkout=cancel`,
        metadata: { projectId },
        subscription_data: { metadata: { projectId } },
      }),
    );
    return { id: session.id, url: session.url };
  }

  /** Opens a Stripe customer portal session; 409 `NO_BILLING_ACCOUNT` before the first checkout. */
  async portal(projectId: string, role: MemberRole, request: PortalRequest) {
    requireManager(role);
    const stripe = this.client();
    const account = await findAccount(this.dataSource.manager, projectId);
    if (!account) {
      throw new ApiError(409, 'NO_BILLING_ACCOUNT', 'The project has no billing account yet', {
        suggestion: 'Check out first: POST /users/@me/projects/{id}/checkout.',
      });
    }
    const session = await fromStripe(
      stripe.billingPortal.sessions.create({
        customer: account.customerId,
        return_url: request.returnUrl ?? this.billingPage(projectId),
      }),
    );
    return { url: session.url };
  }

  /** The project's latest invoices; none while billing is disabled or before the first checkout. */
  async invoices(projectId: string) {
    const account = this.stripe ? await findAccount(this.dataSource.manager, projectId) : null;
    if (!this.stripe || !account) return [];
    const page = await fromStripe(this.stripe.invoices.list({ customer: account.customerId, limit: INVOICE_LIMIT }));
    return page.data.map(invoiceView);
  }

  /**
   * Verifies and applies one webhook event. Each event applies once: its receipt is stored
   * in the transaction that applies it, so a redelivery finds the receipt and changes nothing.
   */
  async receiveWebhook(payload: Buffer, signature: string | undefined): Promise<WebhookResult> {
    const stripe = this.client();
    const secret = this.config.stripeWebhookSecret;
    if (!secret) throw billingDisabled('STRIPE_WEBHOOK_SECRET is not set, so no payment event can be verified or accepted');
    const event = verifiedEvent(stripe, payload, signature, secret);
    const result = (outcome: WebhookResult['outcome']): WebhookResult => ({ eventId: event.id, type: event.type, outcome });
    const change = await billingChange(event, (subscriptionId) => fromStripe(stripe.subscriptions.retrieve(subscriptionId)));
    if (!change) return result('ignored');
    return this.dataSource.transaction(async (manager) => {
      if (!(await recordReceipt(manager, event.id, event.type))) return result('duplicate');
      const changed =
        change.kind === 'checkout'
          ? await linkCheckout(manager, change.projectId, change.customerId, change.subscriptionId)
          : await applySubscription(manager, change.state);
      return result(changed ? 'applied' : 'unchanged');
    });
  }

  private client(): Stripe {
    if (!this.stripe) throw billingDisabled('Billing is disabled on this Herald: STRIPE_SECRET_KEY is not set');
    return this.stripe;
  }

  /**
   * Creates the project's Stripe customer. The idempotency key is the project's, so two
   * concurrent first checkouts get the same customer from Stripe and store it once.
   */
  private async createCustomer(stripe: Stripe, projectId: string): Promise<string> {
    const customer = await fromStripe(
      stripe.customers.create(
        { description: `Herald project ${projectId}`, metadata: { projectId } },
        { idempotencyKey: `herald-customer-${projectId}` },
      ),
    );
    return storeCustomer(this.dataSource.manager, projectId, customer.id);
  }

  private billingPage(projectId: string): string {
    return `${this.config.publicUrl}/projects/${projectId}/billing`;
  }
}
