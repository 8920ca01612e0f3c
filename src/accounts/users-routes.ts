import { IsString, Length } from 'class-validator';
import { Router } from 'express';
import type { DataSource } from 'typeorm';
import { sessionAuth } from '../http/middleware/session-auth';
import { parseBody } from '../http/validate';
import { userView } from './auth-service';
import { roleIn } from '../projects/members-service';
import type { Services } from '../composition';

class ProjectBody {
  @IsString() @Length(1, 100) name: string;
}

/** The signed-in user and their projects (`/users/@me/*`). */
export function usersRouter(services: Services, dataSource: DataSource): Router {
  const router = Router();
  router.use('/users/@me', sessionAuth(dataSource));
  const role = (projectId: string, userId: string) => roleIn(dataSource, projectId, userId);

  router.get('/users/@me', (req, res) => {
    res.json(userView(req.user!));
  });

  router.get('/users/@me/projects', async (req, res) => {
    res.json(await services.projects.list(req.user!.id));
  });

  router.post('/users/@me/projects', async (req, res) => {
    const body = parseBody(ProjectBody, req.body);
    res.status(201).json(await services.projects.create(req.user!.id, body.name));
  });

  router.get('/users/@me/projects/:id', async (req, res) => {
    res.json(await services.projects.get(req.params.id, await role(req.params.id, req.user!.id)));
  });

  router.patch('/users/@me/projects/:id', async (req, res) => {
    const memberRole = await role(req.params.id, req.user!.id);
    const body = parseBody(ProjectBody, req.body);
    res.json(await services.projects.rename(req.params.id, memberRole, body.name));
  });

  router.delete('/users/@me/projects/:id', async (req, res) => {
    await services.projects.delete(req.params.id, await role(req.params.id, req.user!.id));
    res.json({ success: true });
  });

  router.post('/users/@me/projects/:id/regenerate-keys', async (req, res) => {
    res.json(await services.projects.regenerateKeys(req.params.id, await role(req.params.id, req.user!.id)));
  });

  router.post('/users/@me/projects/:id/reset', async (req, res) => {
    await services.projects.reset(req.params.id, await role(req.params.id, req.user!.id));
    res.json({ success: true });
  });

  return router;
}
