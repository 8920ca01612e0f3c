import { errorExample, jsonResponse, parameterRef, pathParam, responseRef, schemaRef } from '../openapi/builders';
import { cursorPageOf } from '../openapi/operations';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { DATA_RULES } from '../contacts/contacts-docs';
import { DeletedEvents, Event, EventNameList, EventStats, EventUsage, RESERVED_NAMES, TrackResult } from './events-dtos';

export const trackTag: Tag = {
  name: 'Track',
  description:
    'Recording what contacts do. Events feed workflow triggers, segment filters and campaign audiences. ' +
    'The only endpoint callable with the public key, so it can be called from a browser.',
};

export const eventsTag: Tag = {
  name: 'Events',
  description:
    'Stored events: those tracked through `/v1/track` (source `API`) and those Herald records itself ' +
    '(source `SYSTEM`): `email.sent`, `email.delivered`, `email.opened`, `email.clicked`, `email.bounced`, ' +
    '`email.complained`, `email.failed`, `email.received`, `contact.subscribed`, `contact.unsubscribed`, ' +
    '`segment.<slug>.entry` and `segment.<slug>.exit`. Secret key.',
};

const validationFailed: Response = jsonResponse(
  'The request failed validation (`VALIDATION_ERROR`): an invalid field, a reserved event name (field error code ' +
    '`reserved_event` on `event`) or a malformed `Idempotency-Key`. Nothing was written and the key is not used up.',
  schemaRef('ErrorResponse'),
  {
    examples: {
      reservedEvent: {
        summary: 'A reserved event name',
        value: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
          errors: [{ field: 'event', message: 'The event name email.opened is reserved', code: 'reserved_event', received: 'email.opened' }],
        }),
      },
      invalidEmail: {
        summary: 'An invalid email',
        value: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
          errors: [{ field: 'email', message: 'Must be a valid email address', code: 'invalid_string', received: 'ada@' }],
        }),
      },
    },
  },
);

/** The tracking operation; `/v1/track` and its dashboard alias `/events/track` differ only in id, summary and keys. */
const trackDoc = (operationId: string, summary: string, keys: string): EndpointDoc => ({
  operationId,
  summary,
  description: [
    `${keys} Upserts the contact by email (created if unknown), applies \`data\` to it, then records the ` +
      'event (source `API`) and starts the workflows it triggers. Tracking the same event again records a new event.',
    '',
    RESERVED_NAMES,
    '',
    '`subscribed`: a new contact is subscribed unless it is `false`; an existing contact keeps its state unless it ' +
      'is given. A change records `contact.subscribed` or `contact.unsubscribed`. Pass `false` to track an ' +
      'unsubscribed contact without resubscribing it.',
    '',
    DATA_RULES,
  ].join('\n'),
  parameters: [parameterRef('IdempotencyKey')],
  requestBody: { example: { email: 'ada@example.com', event: 'signed_up', data: { plan: 'pro', coupon: { value: 'WELCOME10', persistent: false } } } },
  response: {
    description: 'The event was recorded.',
    shape: TrackResult,
    example: {
      success: true,
      data: { contact: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13', event: 'e2a7c9d1-4b6f-4f3a-8c2e-1d5b7a9f0c36', timestamp: '2025-01-01T12:00:00.000Z' },
    },
  },
  errors: { '409': responseRef('IdempotencyKeyReused'), '422': validationFailed },
});

export const track = trackDoc('track', 'Track an event', 'Public or secret key.');
export const trackFromDashboard = trackDoc(
  'trackFromDashboard',
  'Track an event (dashboard alias)',
  'The dashboard alias of `POST /v1/track`: the same request and answer, but secret key only.',
);

const eventName = pathParam('eventName', 'The event name, URL-encoded (e.g. `signed_up`, `email.opened`).', { type: 'string', minLength: 1 });
const exampleEvent = {
  id: 'e2a7c9d1-4b6f-4f3a-8c2e-1d5b7a9f0c36',
  name: 'signed_up',
  contactId: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
  data: { plan: 'pro' },
  source: 'API',
  createdAt: '2025-01-01T12:00:00.000Z',
};
const pageExample = { data: [exampleEvent], cursor: null, hasMore: false, total: 1 };

export const listEvents: EndpointDoc = {
  operationId: 'listEvents',
  summary: 'List events',
  description: 'Cursor-paginated, newest first.',
  response: { description: 'A page of events.', shape: cursorPageOf(Event), example: pageExample },
};

export const getEventStats: EndpointDoc = {
  operationId: 'getEventStats',
  summary: 'Get event statistics',
  response: {
    description: 'Counts of events.',
    shape: EventStats,
    example: { total: 5230, last24h: 112, last7d: 861, last30d: 3004, byName: [{ name: 'email.sent', count: 3100 }, { name: 'signed_up', count: 412 }] },
  },
};

export const listEventNames: EndpointDoc = {
  operationId: 'listEventNames',
  summary: 'List event names',
  description: 'Every distinct event name of the project, with how often and when it was last seen.',
  response: { description: 'The names.', shape: EventNameList },
};

export const listContactEvents: EndpointDoc = {
  operationId: 'listContactEvents',
  summary: "List a contact's events",
  description: 'Cursor-paginated, newest first. An unknown contact (or one of another project) answers 404.',
  parameters: [pathParam('contactId', 'The contact.')],
  response: { description: "A page of the contact's events.", shape: cursorPageOf(Event), example: pageExample },
};

export const getEventUsage: EndpointDoc = {
  operationId: 'getEventUsage',
  summary: 'Find where an event name is used',
  description:
    'The workflows (triggered by the event, waiting for it in a `WAIT_FOR_EVENT` step, or filtering on ' +
    '`event.<name>` in a `CONDITION` step), segments and campaigns that reference the event name.',
  parameters: [eventName],
  response: { description: 'The referencing resources.', shape: EventUsage },
};

export const deleteEventsByName: EndpointDoc = {
  operationId: 'deleteEventsByName',
  summary: 'Delete every event of a name',
  description: 'Deletes every stored event with this name in the project.',
  parameters: [eventName],
  response: { description: 'The events are gone.', shape: DeletedEvents, example: { deleted: 412 } },
};
