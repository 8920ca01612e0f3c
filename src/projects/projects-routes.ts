import { endpoint, type RouteTable } from '../http/endpoint';
import { notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import { AddMemberBody, ChangeMemberRoleBody } from './projects-dtos';
import * as docs from './projects-docs';

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
      credential: 'member',
      doc: docs.getSetupState,
      handle: async (context) => {
        return context.services.projects.setupState(context.params.id);
      },
    }),
    endpoint({
      method: 'get',
      path: '/projects/{id}/members',
      credential: 'member',
      doc: docs.listMembers,
      handle: async (context) => {
        return context.services.members.list(context.params.id);
      },
    }),
    endpoint<AddMemberBody>({
      method: 'post',
      path: '/projects/{id}/members',
      credential: 'member',
      body: AddMemberBody,
      doc: docs.addMember,
      handle: async (context) => {
        const { services, params, user, body } = context;
        return services.members.add(params.id, context.role, user.id, body.email, body.role ?? 'MEMBER');
      },
    }),
    endpoint<ChangeMemberRoleBody>({
      method: 'patch',
      path: '/projects/{id}/members/{userId}',
      credential: 'member',
      body: ChangeMemberRoleBody,
      doc: docs.changeMemberRole,
      handle: async (context) => {
        const { services, params, body } = context;
        const role = context.role;
        return services.members.changeRole(params.id, role, uuidParam(params.userId, 'Member'), body.role);
      },
    }),
    endpoint({
      method: 'delete',
      path: '/projects/{id}/members/{userId}',
      credential: 'member',
      doc: docs.removeMember,
      handle: async (context) => {
        const { services, params, user } = context;
        const role = context.role;
        await services.members.remove(params.id, role, user.id, uuidParam(params.userId, 'Member'));
        return { success: true };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/projects/{id}/invites/{inviteId}',
      credential: 'member',
      doc: docs.withdrawInvite,
      handle: async (context) => {
        const { services, params } = context;
        const role = context.role;
        await services.members.withdrawInvite(params.id, role, uuidParam(params.inviteId, 'Invite'));
        return { success: true };
      },
    }),
  ],
};
