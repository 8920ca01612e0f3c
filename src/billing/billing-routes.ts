import { endpoint, type RouteTable } from '../http/endpoint';
import { BillingPortalBody, CheckoutBody } from './billing-dtos';
import * as docs from './billing-docs';

/**
 * A project's Stripe checkout, billing portal and invoices (`/users/@me/projects/{id}/...`, session), and
 * `POST /webhooks/incoming/payments`: Stripe events, authenticated by their `Stripe-Signature` over the raw body.
 */
export const billingRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint<CheckoutBody>({
      method: 'post',
      path: '/users/@me/projects/{id}/checkout',
      credential: 'member',
      body: CheckoutBody,
      doc: docs.createCheckoutSession,
      handle: async (context) => context.services.payments.checkout(context.params.id, context.role, context.body),
    }),
    endpoint<BillingPortalBody>({
      method: 'post',
      path: '/users/@me/projects/{id}/billing-portal',
      credential: 'member',
      body: BillingPortalBody,
      doc: docs.createBillingPortalSession,
      handle: async (context) => context.services.payments.portal(context.params.id, context.role, context.body),
    }),
    endpoint({
      method: 'get',
      path: '/users/@me/projects/{id}/billing-invoices',
      credential: 'member',
      doc: docs.listBillingInvoices,
      handle: async (context) => {
        return context.services.payments.invoices(context.params.id);
      },
    }),
    endpoint({
      method: 'post',
      path: '/webhooks/incoming/payments',
      credential: 'none',
      bodyKind: 'raw',
      doc: docs.receivePaymentEvents,
      handle: async ({ services, req }) => {
        const payload = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const result = await services.payments.receiveWebhook(payload, req.get('stripe-signature'));
        req.log.info(result, 'payment event received');
        return { received: true };
      },
    }),
  ],
};
