import { endpoint, type RouteTable } from '../http/endpoint';
import { forbidden } from '../http/errors';
import { AddDomainBody, Domain } from './domains-dtos';
import * as docs from './domains-docs';
import { domainView } from './domains-service';

/** Sender domains (`/domains`): add, list, verify now, remove; secret key. */
export const domainsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Domain],
  endpoints: [
    endpoint<AddDomainBody>({
      method: 'post',
      path: '/domains',
      credential: 'secret',
      body: AddDomainBody,
      doc: docs.addDomain,
      handle: async ({ services, project, body }) => domainView(await services.domains.add(project.id, body.domain)),
    }),
    endpoint({
      method: 'get',
      path: '/domains/project/{projectId}',
      credential: 'secret',
      doc: docs.listDomains,
      handle: async ({ services, project, params }) => {
        if (params.projectId !== project.id) {
          throw forbidden("This API key belongs to another project; list the domains with that project's key");
        }
        return (await services.domains.list(project.id)).map(domainView);
      },
    }),
    endpoint({
      method: 'get',
      path: '/domains/{id}/verify',
      credential: 'secret',
      doc: docs.verifyDomain,
      handle: async ({ services, project, params }) => domainView(await services.domains.verify(project.id, params.id)),
    }),
    endpoint({
      method: 'delete',
      path: '/domains/{id}',
      credential: 'secret',
      doc: docs.deleteDomain,
      handle: async ({ services, project, params }) => {
        await services.domains.remove(project.id, params.id);
        return { success: true };
      },
    }),
  ],
};
