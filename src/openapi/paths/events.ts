import {
  arrayOf,
  commonErrors,
  cursorPage,
  dateTime,
  described,
  jsonResponse,
  object,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  uuid,
} from '../builders';
import type { PathModule, Schema } from '../types';
import { trackOperation } from './track';

const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };
const eventName = pathParam('eventName', 'The event name, URL-encoded (e.g. `signed_up`, `email.opened`).', {
  type: 'string',
  minLength: 1,
});
const usageRef: Schema = object({ id: uuid, name: { type: 'string' } });
const count: Schema = { type: 'integer', minimum: 0 };

/** Events: what contacts did, tracked by clients or recorded by Herald itself. */
export const pathModule: PathModule = {
  tag: {
    name: 'Events',
    description:
      'Stored events: those tracked through `/v1/track` (source `API`) and those Herald records itself ' +
      '(source `SYSTEM`): `email.sent`, `email.delivered`, `email.opened`, `email.clicked`, `email.bounced`, ' +
      '`email.complained`, `email.failed`, `email.received`, `contact.subscribed`, `contact.unsubscribed`, ' +
      '`segment.<slug>.entry` and `segment.<slug>.exit`. Secret key.',
  },
  schemas: {
    Event: {
      ...object({
        id: uuid,
        name: { type: 'string' },
        contactId: uuid,
        data: described({ type: 'object', additionalProperties: true }, 'The data sent with the event.'),
        source: described(
          { type: 'string', enum: ['API', 'SYSTEM'] },
          '`API` for tracked events, `SYSTEM` for those Herald records.',
        ),
        createdAt: dateTime,
      }),
      example: {
        id: 'e2a7c9d1-4b6f-4f3a-8c2e-1d5b7a9f0c36',
        name: 'signed_up',
        contactId: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
        data: { plan: 'pro' },
        source: 'API',
        createdAt: '2025-01-01T12:00:00.000Z',
      },
    },
    EventStats: object({
      total: described(count, 'Events of the project, all time.'),
      last24h: count,
      last7d: count,
      last30d: count,
      byName: described(arrayOf(object({ name: { type: 'string' }, count })), 'Event count per name.'),
    }),
  },
  paths: {
    '/events/track': {
      post: trackOperation({
        operationId: 'trackFromDashboard',
        summary: 'Track an event (dashboard alias)',
        keys: 'The dashboard alias of `POST /v1/track`: the same request and answer, but secret key only.',
        publicKey: false,
      }),
    },
    '/events': {
      get: {
        operationId: 'listEvents',
        summary: 'List events',
        description: 'Cursor-paginated, newest first.',
        parameters: [
          parameterRef('Limit'),
          parameterRef('Cursor'),
          queryParam('name', 'Only events with this name.', { type: 'string' }),
          queryParam('contactId', "Only this contact's events.", uuid),
        ],
        responses: {
          '200': jsonResponse('A page of events.', cursorPage(schemaRef('Event')), okHeaders),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/events/stats': {
      get: {
        operationId: 'getEventStats',
        summary: 'Get event statistics',
        responses: {
          '200': jsonResponse('Counts of events.', schemaRef('EventStats'), {
            ...okHeaders,
            example: {
              total: 5230,
              last24h: 112,
              last7d: 861,
              last30d: 3004,
              byName: [
                { name: 'email.sent', count: 3100 },
                { name: 'signed_up', count: 412 },
              ],
            },
          }),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/events/names': {
      get: {
        operationId: 'listEventNames',
        summary: 'List event names',
        description: 'Every distinct event name of the project, with how often and when it was last seen.',
        responses: {
          '200': jsonResponse(
            'The names.',
            object({ data: arrayOf(object({ name: { type: 'string' }, count, lastSeenAt: dateTime })) }),
            okHeaders,
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/events/contact/{contactId}': {
      parameters: [pathParam('contactId', 'The contact.')],
      get: {
        operationId: 'listContactEvents',
        summary: "List a contact's events",
        description: 'Cursor-paginated, newest first. An unknown contact (or one of another project) answers 404.',
        parameters: [parameterRef('Limit'), parameterRef('Cursor')],
        responses: {
          '200': jsonResponse("A page of the contact's events.", cursorPage(schemaRef('Event')), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/events/{eventName}/usage': {
      parameters: [eventName],
      get: {
        operationId: 'getEventUsage',
        summary: 'Find where an event name is used',
        description:
          'The workflows (triggered by the event, waiting for it in a `WAIT_FOR_EVENT` step, or filtering on ' +
          '`event.<name>` in a `CONDITION` step), segments and campaigns that reference the event name.',
        responses: {
          '200': jsonResponse(
            'The referencing resources.',
            object({
              name: { type: 'string' },
              workflows: arrayOf(usageRef),
              segments: arrayOf(usageRef),
              campaigns: arrayOf(usageRef),
            }),
            okHeaders,
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/events/{eventName}': {
      parameters: [eventName],
      delete: {
        operationId: 'deleteEventsByName',
        summary: 'Delete every event of a name',
        description: 'Deletes every stored event with this name in the project.',
        responses: {
          '200': jsonResponse(
            'The events are gone.',
            object({ deleted: described(count, 'How many events were deleted.') }),
            { ...okHeaders, example: { deleted: 412 } },
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
  },
};
