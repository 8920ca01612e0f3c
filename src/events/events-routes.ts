import { endpoint, type EndpointContext, type RouteTable } from '../http/endpoint';
import { CursorPageQuery } from '../http/page-query';
import { cursorParams } from '../http/pagination';
import { isUuid, uuidPathId } from '../http/validate';
import { DeletedEvents, Event, EventListQuery, EventNameList, EventStats, EventUsage, quickTrackRequest, TrackRequest, TrackResult } from './events-dtos';
import * as docs from './events-docs';
import type { EventCursor } from './events-queries';

/** Tracks an event: the handler of `POST /v1/track` and its dashboard alias. Kept lean, it is the API's hot path. */
const track = async ({ services, project, body }: EndpointContext<TrackRequest, undefined>) => ({
  success: true,
  data: await services.events.track(project.id, body),
});

/** The cursor page a list query asks for, decoded with the events list's cursors. */
const eventPage = ({ query, cursors }: EndpointContext<undefined, CursorPageQuery>) => cursorParams(query, cursors.for<EventCursor>('events'));

/** `POST /v1/track`: the one endpoint the public key may call. */
export const trackRoutes: RouteTable = {
  tag: docs.trackTag,
  shapes: [TrackResult],
  endpoints: [
    endpoint<TrackRequest>({ method: 'post', path: '/v1/track', credential: 'key', body: TrackRequest, quickBody: quickTrackRequest, lean: true, doc: docs.track, handle: track }),
  ],
};

/** Reading and deleting events (`/events/*`), and the dashboard's tracking alias. */
export const eventsRoutes: RouteTable = {
  tag: docs.eventsTag,
  shapes: [Event, EventStats, EventNameList, EventUsage, DeletedEvents],
  endpoints: [
    endpoint<TrackRequest>({
      method: 'post',
      path: '/events/track',
      credential: 'secret',
      body: TrackRequest,
      quickBody: quickTrackRequest,
      doc: docs.trackFromDashboard,
      handle: track,
    }),
    endpoint<undefined, EventListQuery>({
      method: 'get',
      path: '/events',
      credential: 'secret',
      query: EventListQuery,
      doc: docs.listEvents,
      handle: async (context) => {
        const { services, project, query } = context;
        const page = eventPage(context);
        if (query.contactId !== undefined && !isUuid(query.contactId)) return { data: [], cursor: null, hasMore: false, total: 0 };
        return services.events.list(project.id, { name: query.name, contactId: query.contactId }, page);
      },
    }),
    endpoint({
      method: 'get',
      path: '/events/stats',
      credential: 'secret',
      doc: docs.getEventStats,
      handle: ({ services, project }) => services.events.stats(project.id),
    }),
    endpoint({
      method: 'get',
      path: '/events/names',
      credential: 'secret',
      doc: docs.listEventNames,
      handle: ({ services, project }) => services.events.names(project.id),
    }),
    endpoint<undefined, CursorPageQuery>({
      method: 'get',
      path: '/events/contact/{contactId}',
      credential: 'secret',
      query: CursorPageQuery,
      doc: docs.listContactEvents,
      handle: (context) => {
        const { services, project, params } = context;
        return services.events.forContact(project.id, uuidPathId(params.contactId, 'Contact'), eventPage(context));
      },
    }),
    endpoint({
      method: 'get',
      path: '/events/{eventName}/usage',
      credential: 'secret',
      doc: docs.getEventUsage,
      handle: ({ services, project, params }) => services.events.usage(project.id, params.eventName),
    }),
    endpoint({
      method: 'delete',
      path: '/events/{eventName}',
      credential: 'secret',
      doc: docs.deleteEventsByName,
      handle: ({ services, project, params }) => services.events.deleteByName(project.id, params.eventName),
    }),
  ],
};
