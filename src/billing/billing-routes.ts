import { IsString, IsUrl, Length } from 'class-validator';
import { Router } from 'express';
import type { DataSource } from 'typeorm';
import { sessionAuth } from '../http/middleware/session-auth';
import { Optional, parseBody } from '../http/validate';
import { roleIn } from '../projects/members-service';
import type { Services } from '../composition';

const WEB_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

class CheckoutBody {
  @Optional() @IsString() @Length(1, 255) priceId?: string;
  @Optional() @IsUrl(WEB_URL) successUrl?: string;
  @Optional() @IsUrl(WEB_URL) cancelUrl?: string;
}

class PortalBody {
  @Optional() @IsUrl(WEB_URL) returnUrl?: string;
}

/** A project's Stripe checkout, billing portal and invoices (`/users/@me/projects/{id}/...`, session cookie). */
export function billingRouter(services: Services, dataSource: DataSource): Router {
  const router = Router();
  const path = '/users/@me/projects/:id';
  router.use([`${path}/checkout`, `${path}/billing-portal`, `${path}/billing-invoices`], sessionAuth(dataSource));
  const role = (projectId: string, userId: string) => roleIn(dataSource, projectId, userId);

  router.post(`${path}/checkout`, async (req, res) => {
    const memberRole = await role(req.params.id, req.user!.id);
    const body = parseBody(CheckoutBody, req.body);
    res.status(201).json(await services.payments.checkout(req.params.id, memberRole, body));
  });

  router.post(`${path}/billing-portal`, async (req, res) => {
    const memberRole = await role(req.params.id, req.user!.id);
    const body = parseBody(PortalBody, req.body);
    res.status(201).json(await services.payments.portal(req.params.id, memberRole, body));
  });

  router.get(`${path}/billing-invoices`, async (req, res) => {
    await role(req.params.id, req.user!.id);
    res.json(await services.payments.invoices(req.params.id));
  });

  return router;
}
