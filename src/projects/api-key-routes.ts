import { endpoint, type RouteTable } from '../http/endpoint';
import * as docs from './api-key-docs';

/** `GET /v1/api-key`: tells a client whether its secret key works and which project it belongs to. */
export const apiKeyRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint({
      method: 'get',
      path: '/v1/api-key',
      credential: 'secret',
      doc: docs.getApiKey,
      handle: ({ project }) => ({ success: true, data: { projectId: project.id, projectName: project.name, keyKind: project.keyKind } }),
    }),
  ],
};
