import { endpoint, type RouteTable } from '../http/endpoint';
import { intParam } from '../http/query';
import { OutboxList, OutboxListQuery } from './outbox-dtos';
import * as docs from './outbox-docs';

/**
 * `GET /outbox` (session): the messages the outbox transport kept, limited to the signed-in
 * user's projects and address. Always documented, but mounted only while the transport is
 * `outbox` (src/app.ts); otherwise the path is unknown.
 */
export const outboxRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [OutboxList],
  endpoints: [
    endpoint<undefined, OutboxListQuery>({
      method: 'get',
      path: '/outbox',
      credential: 'session',
      query: OutboxListQuery,
      doc: docs.listOutbox,
      handle: async ({ services, user, query }) => ({
        data: await services.outbox.list(
          { userId: user.id, email: user.email, emailVerified: user.emailVerified },
          { limit: intParam(query, 'limit', { fallback: 50, min: 1, max: 200, clamp: true }), to: query.to?.trim() || undefined },
        ),
      }),
    }),
  ],
};
