import { Router } from 'express';
import type { PaymentsService } from './payments-service';

/**
 * `POST /webhooks/incoming/payments`: Stripe events, authenticated by their `Stripe-Signature`.
 * The app hands this route the raw body (the signature covers the exact bytes).
 */
export function paymentsWebhookRouter(payments: PaymentsService): Router {
  const router = Router();
  router.post('/webhooks/incoming/payments', async (req, res) => {
    const payload = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const result = await payments.receiveWebhook(payload, req.get('stripe-signature'));
    req.log.info(result, 'payment event received');
    res.json({ received: true });
  });
  return router;
}
