import { Router, type RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { sessionAuth } from '../http/middleware/session-auth';
import { roleIn } from '../projects/members-service';
import type { Services } from '../composition';

/**
 * A project's sender reputation for its members (session cookie): the security state at
 * `/users/@me/projects/{id}/security` and `/projects/{id}/security` alike, and lifting a
 * suspension (operators only: ADMIN_EMAILS accounts).
 */
export function securityRouter(services: Services, dataSource: DataSource): Router {
  const router = Router();
  router.use(['/users/@me/projects/:id/security', '/projects/:id/security'], sessionAuth(dataSource));
  const role = (projectId: string, userId: string) => roleIn(dataSource, projectId, userId);

  const state: RequestHandler<{ id: string }> = async (req, res) => {
    await role(req.params.id, req.user!.id);
    res.json(await services.reputation.state(req.params.id));
  };
  router.get('/users/@me/projects/:id/security', state);
  router.get('/projects/:id/security', state);

  router.post('/users/@me/projects/:id/security/lift', async (req, res) => {
    res.json(await services.suspensionLifts.liftFor(req.user!, req.params.id));
  });

  return router;
}
