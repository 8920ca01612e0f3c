import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  errorResponse,
  jsonBody,
  jsonResponse,
  noAuth,
  object,
  pathParam,
  schemaRef,
  sessionAuth,
} from '../builders';
import type { PathModule, Schema } from '../types';

const text: Schema = { type: 'string' };
const nullableText: Schema = { type: ['string', 'null'] };
const webUrl: Schema = { type: 'string', format: 'uri' };
const projectId = pathParam('id', 'The project.');
const ownerOrAdmin = errorResponse(403, 'FORBIDDEN', 'Only an OWNER or ADMIN of the project may do this');
const disabled = errorResponse(501, 'BILLING_DISABLED', 'Billing is disabled on this Herald (`STRIPE_SECRET_KEY` is not set)');
const providerError = errorResponse(502, 'BILLING_PROVIDER_ERROR', 'Stripe refused or failed the request; the message is Stripe\'s');

const EVENTS = [
  '| Stripe event | effect on the project\'s billing account |',
  '|---|---|',
  '| `checkout.session.completed` (mode `subscription`) | links the customer and subscription to the project named by `client_reference_id` (or `metadata.projectId`) |',
  '| `customer.subscription.created`, `.updated`, `.deleted` | records the subscription\'s `status`, price and current period end, for the account of its customer |',
  '| `invoice.paid`, `invoice.payment_failed` | fetches the invoice\'s subscription from Stripe and records its state as above |',
  '| any other | acknowledged and ignored |',
].join('\n');

/** Stripe checkout, customer portal, invoices, and the receiver of Stripe's webhook events. */
export const pathModule: PathModule = {
  tag: {
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
  },
  schemas: {
    CheckoutSession: object({
      id: described(text, 'The Stripe Checkout Session id (`cs_...`).'),
      url: described(webUrl, 'Where to send the user to pay.'),
    }),
    BillingPortalSession: object({ url: described(webUrl, 'Where to send the user to manage their subscription.') }),
    Invoice: object({
      id: text,
      number: nullableText,
      status: described({ type: ['string', 'null'], enum: ['draft', 'open', 'paid', 'uncollectible', 'void', null] }, 'As Stripe reports it.'),
      currency: described(text, 'Three-letter ISO code, lower case.'),
      amountDue: described({ type: 'integer' }, 'In the smallest unit of the currency (cents).'),
      amountPaid: { type: 'integer' },
      total: { type: 'integer' },
      createdAt: dateTime,
      periodStart: dateTime,
      periodEnd: dateTime,
      hostedInvoiceUrl: described(nullableText, 'The invoice page at Stripe.'),
      invoicePdf: described(nullableText, 'The PDF at Stripe.'),
    }),
  },
  paths: {
    '/users/@me/projects/{id}/checkout': {
      parameters: [projectId],
      post: {
        operationId: 'createCheckoutSession',
        summary: 'Create a payment checkout session',
        description:
          'Creates a Stripe Checkout Session in `subscription` mode for the project (`client_reference_id` = project id), ' +
          'creating the project\'s Stripe customer the first time. The subscription is recorded when Stripe\'s webhook ' +
          'reports it. Default return URLs: `PUBLIC_URL/projects/{id}/billing?checkout=success|cancel`. OWNER or ADMIN.',
        security: sessionAuth,
        requestBody: {
          ...jsonBody(
            object(
              {
                priceId: described({ type: 'string', minLength: 1, maxLength: 255 }, 'A Stripe price id; default `STRIPE_PRICE_ID`.'),
                successUrl: described(webUrl, 'Where Stripe sends the user after paying; `{CHECKOUT_SESSION_ID}` is filled in.'),
                cancelUrl: described(webUrl, 'Where Stripe sends the user who gives up.'),
              },
              [],
            ),
          ),
          required: false,
        },
        responses: {
          '201': jsonResponse('The session.', schemaRef('CheckoutSession')),
          '403': ownerOrAdmin,
          '409': errorResponse(409, 'ALREADY_SUBSCRIBED', 'The project has a subscription that has not ended; use the billing portal'),
          '422': errorResponse(422, 'VALIDATION_ERROR', 'A malformed field, or no `priceId` while `STRIPE_PRICE_ID` is unset'),
          '501': disabled,
          '502': providerError,
          ...commonErrors(400, 401, 404, 413),
        },
      },
    },
    '/users/@me/projects/{id}/billing-portal': {
      parameters: [projectId],
      post: {
        operationId: 'createBillingPortalSession',
        summary: 'Open the billing portal',
        description:
          'Creates a Stripe customer portal session for the project\'s customer, where the subscription, payment methods ' +
          'and invoices are managed. Default return URL: `PUBLIC_URL/projects/{id}/billing`. OWNER or ADMIN.',
        security: sessionAuth,
        requestBody: {
          ...jsonBody(object({ returnUrl: described(webUrl, 'Where the portal\'s back link leads.') }, [])),
          required: false,
        },
        responses: {
          '201': jsonResponse('The portal session.', schemaRef('BillingPortalSession')),
          '403': ownerOrAdmin,
          '409': errorResponse(409, 'NO_BILLING_ACCOUNT', 'The project never checked out, so it has no Stripe customer yet'),
          '501': disabled,
          '502': providerError,
          ...commonErrors(400, 401, 404, 413, 422),
        },
      },
    },
    '/users/@me/projects/{id}/billing-invoices': {
      parameters: [projectId],
      get: {
        operationId: 'listBillingInvoices',
        summary: 'List invoices',
        description:
          'The latest 100 invoices of the project\'s Stripe customer, newest first. `[]` while billing is disabled or ' +
          'before the first checkout. Any member.',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('The invoices.', arrayOf(schemaRef('Invoice'))),
          '502': providerError,
          ...commonErrors(401, 404),
        },
      },
    },
    '/webhooks/incoming/payments': {
      post: {
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
        security: noAuth,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: described({ type: 'object' }, 'A Stripe event, exactly as Stripe sent it.') } },
        },
        responses: {
          '200': jsonResponse('The event was handled (or ignored).', object({ received: { const: true } }), {
            example: { received: true },
          }),
          '400': errorResponse(400, 'INVALID_SIGNATURE', 'The Stripe-Signature header is missing, wrong or too old'),
          '501': errorResponse(501, 'BILLING_DISABLED', '`STRIPE_SECRET_KEY` or `STRIPE_WEBHOOK_SECRET` is not set'),
          '502': providerError,
          ...commonErrors(413),
        },
      },
    },
  },
};
