import { endpoint, type RouteTable } from '../http/endpoint';
import { ProjectNameBody } from '../projects/projects-dtos';
import { userView } from './auth-service';
import * as docs from './users-docs';

/** The signed-in user and their projects (`/users/@me/*`, session). */
export const usersRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint({
      method: 'get',
      path: '/users/@me',
      credential: 'session',
      doc: docs.getMe,
      handle: ({ user }) => userView(user),
    }),
    endpoint({
      method: 'get',
      path: '/users/@me/projects',
      credential: 'session',
      doc: docs.listMyProjects,
      handle: ({ services, user }) => services.projects.list(user.id),
    }),
    endpoint<ProjectNameBody>({
      method: 'post',
      path: '/users/@me/projects',
      credential: 'session',
      body: ProjectNameBody,
      doc: docs.createProject,
      handle: ({ services, user, body }) => services.projects.create(user.id, body.name),
    }),
    endpoint({
      method: 'get',
      path: '/users/@me/projects/{id}',
      credential: 'member',
      doc: docs.getProject,
      handle: async (context) => context.services.projects.get(context.params.id, context.role),
    }),
    endpoint<ProjectNameBody>({
      method: 'patch',
      path: '/users/@me/projects/{id}',
      credential: 'member',
      body: ProjectNameBody,
      doc: docs.updateProject,
      handle: async (context) => context.services.projects.rename(context.params.id, context.role, context.body.name),
    }),
    endpoint({
      method: 'delete',
      path: '/users/@me/projects/{id}',
      credential: 'member',
      doc: docs.deleteProject,
      handle: async (context) => {
        await context.services.projects.delete(context.params.id, context.role);
        return { success: true };
      },
    }),
    endpoint({
      method: 'post',
      path: '/users/@me/projects/{id}/regenerate-keys',
      credential: 'member',
      doc: docs.regenerateProjectKeys,
      handle: async (context) => context.services.projects.regenerateKeys(context.params.id, context.role),
    }),
    endpoint({
      method: 'post',
      path: '/users/@me/projects/{id}/reset',
      credential: 'member',
      doc: docs.resetProject,
      handle: async (context) => {
        await context.services.projects.reset(context.params.id, context.role);
        return { success: true };
      },
    }),
  ],
};
