import { endpoint, type RouteTable } from '../http/endpoint';
import { Health, PublicConfig } from './system-dtos';
import * as docs from './system-docs';

/** Health and feature flags (`/health`, `/config`): the two endpoints that need no authentication. */
export const systemRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Health, PublicConfig],
  endpoints: [
    endpoint({
      method: 'get',
      path: '/health',
      credential: 'none',
      doc: docs.getHealth,
      handle: async ({ services, res }) => {
        const health = await services.system.health();
        res.status(health.status === 'ok' ? 200 : 503).json(health);
      },
    }),
    endpoint({
      method: 'get',
      path: '/config',
      credential: 'none',
      doc: docs.getConfig,
      handle: ({ services }) => services.system.publicConfig(),
    }),
  ],
};
