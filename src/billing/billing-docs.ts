import { arrayOf, commonErrors, described, errorResponse } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { dtoRef } from '../openapi/operations';
import { projectIdParam } from '../projects/projects-docs';
import { BillingPortalSession, CheckoutSession, Invoice, PaymentEventReceipt } from './billing-dtos';

const ownerOrAdmin = errorResponse(403, 'FORBIDDEN', 'Only an OWNER or ADMIN of the project may do this');
const disabled = errorResponse(501, 'BILLING_DISABLED', 'Billing is disabled on this Herald (`STRIPE_SECRET_KEY` is not set)');
const providerError = errorResponse(502, 'BILLING_PROVIDER_ERROR', "Stripe refused or failed the request; the message is Stripe's");

const EVENTS = [
  "| Stripe event | effect on the project's billing account |",
  '|---|---|',
  '| `checkout.session.completed` (mode `subscription`) | links the customer and subscription to the project named by `client_reference_id` (or `metadata.projectId`) |',
  "| `customer.subscription.created`, `.updated`, `.deleted` | records the subscription's `status`, price and current period end, for the account of its customer |",
  "| `invoice.paid`, `invoice.payment_failed` | fetches the invoice's subscription from Stripe and records its state as above |",
  '| any other | acknowledged and ignored |',
].join('\n');

export const tag: Tag = {
  name: 'Billing',
  description: [
    'Project subscriptions through Stripe, configured by environment variables:',
    '',
    '- `STRIPE_SECRET_KEY`: enables billing; unset, checkout and portal answer 501 `BILLING_DISABLED` and invoices `[]` ' +
      '(`GET /config` reports `features.billing`).',
    '- `STRIPE_WEBHOOK_SECRET`: the signing secret of the webhook endpoint; unset, the webhook accepts no event (501).',
    '- `STRIPE_PRICE_ID`: the price a checkout subscribes to when the request names none.',
    '- `STRIPE_API_BASE`: another Stripe API origin (such as a stripe-mock server), e.g. `http://localhost:12111`.',
    '',
    'Each project gets one Stripe customer (metadata `projectId`) at its first checkout.',
  ].join('\n'),
};

export const createCheckoutSession: EndpointDoc = {
  operationId: 'createCheckoutSession',
  summary: 'Create a payment checkout session',
  description:
    "Creates a Stripe Checkout Session in `subscription` mode for the project (`client_reference_id` = project id), " +
    "creating the project's Stripe customer the first time. The subscription is recorded when Stripe's webhook " +
    'reports it. Default return URLs: `PUBLIC_URL/projects/{id}/billing?checkout=success|cancel`. OWNER or ADMIN.',
  parameters: [projectIdParam],
  requestBody: { required: false },
  response: { status: 201, description: 'The session.', shape: CheckoutSession },
  errors: {
    '403': ownerOrAdmin,
    '409': errorResponse(409, 'ALREADY_SUBSCRIBED', 'The project has a subscription that has not ended; use the billing portal'),
    '422': errorResponse(422, 'VALIDATION_ERROR', 'A malformed field, or no `priceId` while `STRIPE_PRICE_ID` is unset'),
    '501': disabled,
    '502': providerError,
  },
};

export const createBillingPortalSession: EndpointDoc = {
  operationId: 'createBillingPortalSession',
  summary: 'Open the billing portal',
  description:
    "Creates a Stripe customer portal session for the project's customer, where the subscription, payment methods " +
    'and invoices are managed. Default return URL: `PUBLIC_URL/projects/{id}/billing`. OWNER or ADMIN.',
  parameters: [projectIdParam],
  requestBody: { required: false },
  response: { status: 201, description: 'The portal session.', shape: BillingPortalSession },
  errors: {
    '403': ownerOrAdmin,
    '409': errorResponse(409, 'NO_BILLING_ACCOUNT', 'The project never checked out, so it has no Stripe customer yet'),
    '501': disabled,
    '502': providerError,
  },
};

export const listBillingInvoices: EndpointDoc = {
  operationId: 'listBillingInvoices',
  summary: 'List invoices',
  description:
    "The latest 100 invoices of the project's Stripe customer, newest first. `[]` while billing is disabled or " +
    'before the first checkout. Any member.',
  parameters: [projectIdParam],
  response: { description: 'The invoices.', shape: arrayOf(dtoRef(Invoice)) },
  errors: { '502': providerError },
};

export const receivePaymentEvents: EndpointDoc = {
  operationId: 'receivePaymentEvents',
  summary: 'Receive billing events from Stripe',
  description: [
    'No API key: the `Stripe-Signature` header (HMAC-SHA256 with `STRIPE_WEBHOOK_SECRET` over the exact body, ' +
      'at most 5 minutes old) authenticates. A missing or wrong signature answers 400 `INVALID_SIGNATURE` and ' +
      'records nothing. Point a Stripe webhook endpoint at this URL with the events below.',
    '',
    'Each event is applied once: its id is stored in the transaction that applies it, so a redelivery changes ' +
      'nothing. Events may arrive in any order: an ended subscription (`canceled`, `incomplete_expired`) is never ' +
      'revived, and an event about an older subscription never replaces one that has not ended.',
    '',
    EVENTS,
  ].join('\n'),
  requestBody: { schema: described({ type: 'object' }, 'A Stripe event, exactly as Stripe sent it.') },
  response: { description: 'The event was handled (or ignored).', shape: PaymentEventReceipt, example: { received: true } },
  errors: {
    '400': errorResponse(400, 'INVALID_SIGNATURE', 'The Stripe-Signature header is missing, wrong or too old'),
    ...commonErrors(413),
    '501': errorResponse(501, 'BILLING_DISABLED', '`STRIPE_SECRET_KEY` or `STRIPE_WEBHOOK_SECRET` is not set'),
    '502': providerError,
  },
};
