import { IsEmail, IsIn } from 'class-validator';
import { Router } from 'express';
import type { DataSource } from 'typeorm';
import { MEMBER_ROLES, type MemberRole } from '../entities/project-member';
import { notFound } from '../http/errors';
import { sessionAuth } from '../http/middleware/session-auth';
import { isUuid, Optional, parseBody } from '../http/validate';
import { roleIn } from './members-service';
import { setupState } from './setup-state';
import type { Services } from '../composition';

class InviteBody {
  @IsEmail({}, { message: 'email must be a valid email address' }) email: string;
  @Optional() @IsIn(MEMBER_ROLES) role?: MemberRole;
}

class RoleBody {
  @IsIn(MEMBER_ROLES) role: MemberRole;
}

/** Project pages for members (`/projects/{id}/*`): onboarding state and membership. */
export function projectsRouter(services: Services, dataSource: DataSource): Router {
  const router = Router();
  router.use('/projects', sessionAuth(dataSource));
  const role = (projectId: string, userId: string) => roleIn(dataSource, projectId, userId);
  const userParam = (userId: string) => {
    if (!isUuid(userId)) throw notFound('Member');
    return userId;
  };

  router.get('/projects/:id/setup-state', async (req, res) => {
    await role(req.params.id, req.user!.id);
    res.json(await setupState(dataSource, req.params.id));
  });

  router.get('/projects/:id/members', async (req, res) => {
    await role(req.params.id, req.user!.id);
    res.json(await services.members.list(req.params.id));
  });

  router.post('/projects/:id/members', async (req, res) => {
    const actorRole = await role(req.params.id, req.user!.id);
    const body = parseBody(InviteBody, req.body);
    res.status(201).json(await services.members.add(req.params.id, actorRole, req.user!.id, body.email, body.role ?? 'MEMBER'));
  });

  router.patch('/projects/:id/members/:userId', async (req, res) => {
    const actorRole = await role(req.params.id, req.user!.id);
    const body = parseBody(RoleBody, req.body);
    res.json(await services.members.changeRole(req.params.id, actorRole, userParam(req.params.userId), body.role));
  });

  router.delete('/projects/:id/members/:userId', async (req, res) => {
    const actorRole = await role(req.params.id, req.user!.id);
    await services.members.remove(req.params.id, actorRole, req.user!.id, userParam(req.params.userId));
    res.json({ success: true });
  });

  router.delete('/projects/:id/invites/:inviteId', async (req, res) => {
    const actorRole = await role(req.params.id, req.user!.id);
    if (!isUuid(req.params.inviteId)) throw notFound('Invite');
    await services.members.withdrawInvite(req.params.id, actorRole, req.params.inviteId);
    res.json({ success: true });
  });

  return router;
}
