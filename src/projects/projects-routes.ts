import { endpoint, type RouteTable } from '../http/endpoint';
import { notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import { AddMemberBody, ChangeMemberRoleBody } from './projects-dtos';
import * as docs from './projects-docs';
import { callerRole } from './roles';

/** A path id that is not a UUID names nothing: 404 for `what`. */
const uuidParam = (id: string, what: string) => {
  if (!isUuid(id)) throw notFound(what);
  return id;
};

/** Project pages for members (`/projects/{id}/*`, session): onboarding state and membership. */
export const projectsRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint({
      method: 'get',
      path: '/projects/{id}/setup-state',
      credential: 'session',
      doc: docs.getSetupState,
      handle: async (context) => {
        await callerRole(context);
        return context.services.projects.setupState(context.params.id);
      },
    }),
    endpoint({
      method: 'get',
      path: '/projects/{id}/members',
      credential: 'session',
      doc: docs.listMembers,
      handle: async (context) => {
        await callerRole(context);
        return context.services.members.list(context.params.id);
      },
    }),
    endpoint<AddMemberBody>({
      method: 'post',
      path: '/projects/{id}/members',
      credential: 'session',
      body: AddMemberBody,
      doc: docs.addMember,
      handle: async (context) => {
        const { services, params, user, body } = context;
        return services.members.add(params.id, await callerRole(context), user.id, body.email, body.role ?? 'MEMBER');
      },
    }),
    endpoint<ChangeMemberRoleBody>({
      method: 'patch',
      path: '/projects/{id}/members/{userId}',
      credential: 'session',
      body: ChangeMemberRoleBody,
      doc: docs.changeMemberRole,
      handle: async (context) => {
        const { services, params, body } = context;
        const role = await callerRole(context);
        return services.members.changeRole(params.id, role, uuidParam(params.userId, 'Member'), body.role);
      },
    }),
    endpoint({
      method: 'delete',
      path: '/projects/{id}/members/{userId}',
      credential: 'session',
      doc: docs.removeMember,
      handle: async (context) => {
        const { services, params, user } = context;
        const role = await callerRole(context);
        await services.members.remove(params.id, role, user.id, uuidParam(params.userId, 'Member'));
        return { success: true };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/projects/{id}/invites/{inviteId}',
      credential: 'session',
      doc: docs.withdrawInvite,
      handle: async (context) => {
        const { services, params } = context;
        const role = await callerRole(context);
        await services.members.withdrawInvite(params.id, role, uuidParam(params.inviteId, 'Invite'));
        return { success: true };
      },
    }),
  ],
};
