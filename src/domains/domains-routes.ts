import { IsString } from 'class-validator';
import { Router } from 'express';
import { domainView, type DomainsService } from './domains-service';
import { forbidden } from '../http/errors';
import { parseBody } from '../http/validate';

class AddDomainBody {
  @IsString() domain: string;
}

/** Sender domains (`/domains`): add, list, verify now, remove. */
export function domainsRouter(domains: DomainsService): Router {
  const router = Router();

  router.get('/domains/project/:projectId', async (req, res) => {
    if (req.params.projectId !== req.project!.id) {
      throw forbidden('This API key belongs to another project; list the domains with that project\'s key');
    }
    res.json((await domains.list(req.project!.id)).map(domainView));
  });

  router.post('/domains', async (req, res) => {
    const body = parseBody(AddDomainBody, req.body);
    res.status(201).json(domainView(await domains.add(req.project!.id, body.domain)));
  });

  router.get('/domains/:id/verify', async (req, res) => {
    res.json(domainView(await domains.verify(req.project!.id, req.params.id)));
  });

  router.delete('/domains/:id', async (req, res) => {
    await domains.remove(req.project!.id, req.params.id);
    res.json({ success: true });
  });

  return router;
}
