import { endpoint, type RouteTable } from '../http/endpoint';
import { uuidPathId } from '../http/validate';
import { AddMemberBody, ChangeMemberRoleBody } from './projects-dtos';
import * as docs from './projects-docs';

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
        return services.members.changeRole(params.id, role, uuidPathId(params.userId, 'Member'), body.role);
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
        await services.members.remove(params.id, role, user.id, uuidPathId(params.userId, 'Member'));
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
        await services.members.withdrawInvite(params.id, role, uuidPathId(params.inviteId, 'Invite'));
        return { success: true };
      },
    }),
  ],
};
