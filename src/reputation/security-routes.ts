import { endpoint, type EndpointContext, type RouteTable } from '../http/endpoint';
import * as docs from './security-docs';

/** The security state answered to any member of the project. */
const state = (context: EndpointContext<undefined, undefined>) => context.services.reputation.state(context.params.id);

/**
 * A project's sender reputation for its members (session): the security state at
 * `/users/@me/projects/{id}/security` and `/projects/{id}/security` alike, and lifting a
 * suspension (operators only: ADMIN_EMAILS accounts).
 */
export const securityRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint({ method: 'get', path: '/users/@me/projects/{id}/security', credential: 'member', doc: docs.getProjectSecurity, handle: state }),
    endpoint({ method: 'get', path: '/projects/{id}/security', credential: 'member', doc: docs.getProjectSecurityState, handle: state }),
    endpoint({
      method: 'post',
      path: '/users/@me/projects/{id}/security/lift',
      credential: 'session',
      doc: docs.liftProjectSuspension,
      handle: ({ services, user, params }) => services.suspensionLifts.liftFor(user, params.id),
    }),
  ],
};
