import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  email,
  errorExample,
  errorResponse,
  jsonBody,
  jsonResponse,
  notBlank,
  object,
  offsetPage,
  orNull,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  uuid,
} from '../builders';
import { CONDITION_RULES, conditionSchemas } from '../conditions';
import type { PathModule, Response, Schema } from '../types';

const segmentId = pathParam('id', 'The segment.');
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };

const exampleCondition = {
  logic: 'AND',
  groups: [
    {
      filters: [
        { field: 'data.plan', operator: 'equals', value: 'pro' },
        { field: 'event.purchase', operator: 'within', value: 30, unit: 'days' },
      ],
    },
  ],
};

const exampleSegment = {
  id: '7c2e4a1b-3d5f-4e6a-8b9c-0d1e2f3a4b5c',
  name: 'VIP Customers',
  description: 'Pro plan, bought in the last 30 days',
  type: 'DYNAMIC',
  condition: exampleCondition,
  trackMembership: true,
  memberCount: 42,
  projectId: '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a',
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-02T08:30:00.000Z',
};

const fields = {
  name: described(notBlank({ type: 'string', maxLength: 100 }), 'Display name, trimmed; also gives the slug of the entry and exit events.'),
  description: described(orNull({ type: 'string', maxLength: 500 }), 'Internal note.'),
  type: described(
    { type: 'string', enum: ['DYNAMIC', 'STATIC'], default: 'DYNAMIC' },
    '`DYNAMIC`: the contacts matching `condition`, evaluated live. `STATIC`: a list managed with `/segments/{id}/members`. Fixed at creation.',
  ),
  condition: described(schemaRef('Condition'), 'Required for `DYNAMIC`; ignored for `STATIC` (stored as null).'),
  trackMembership: described(
    { type: 'boolean', default: false },
    'Keep a stored membership and record `segment.<slug>.entry` / `segment.<slug>.exit` events as contacts join and leave.',
  ),
};

/** `POST /segments`: a `STATIC` segment takes any `condition` (and drops it), any other needs a valid one. */
const createBody: Schema = {
  ...object({ ...fields, condition: described({}, fields.condition.description as string) }, ['name']),
  anyOf: [object({ type: { const: 'STATIC' } }), object({ condition: schemaRef('Condition') })],
};

const badBody: Response = jsonResponse(
  'A missing or empty `name`, or a `DYNAMIC` segment without a `condition` object, answers the bare body `{ error }`; ' +
    'a body that is not valid JSON answers `BAD_REQUEST` in the error envelope.',
  { oneOf: [schemaRef('BareError'), schemaRef('ErrorResponse')] },
  {
    examples: {
      missingCondition: { summary: 'No condition', value: { error: 'condition is required for a DYNAMIC segment and must be an object' } },
      malformed: { summary: 'Malformed JSON', value: errorExample(400, 'BAD_REQUEST', 'Malformed JSON in request body') },
    },
  },
);

const invalid: Response = jsonResponse(
  'A field is invalid (`VALIDATION_ERROR`): too long, wrong type, or a condition tree that does not validate (field code `invalid_condition`).',
  schemaRef('ErrorResponse'),
  {
    example: errorExample(422, 'VALIDATION_ERROR', 'The condition is not valid', {
      errors: [{ field: 'condition.groups[0].filters[0].operator', code: 'invalid_condition', message: 'operator is one of equals, …', received: 'is' }],
      suggestion: 'Check the fields listed in error.errors and send the request again.',
    }),
  },
);

const staticOnly = errorResponse(400, 'BAD_REQUEST', 'The segment is DYNAMIC: its members follow its condition', {
  message: 'Members are managed on STATIC segments only; a DYNAMIC segment follows its condition',
});

const emails = (item: Schema, description: string): Schema => described({ ...arrayOf(item), minItems: 1, maxItems: 1000 }, description);

/** Segments: dynamic conditions and static lists of contacts. */
export const pathModule: PathModule = {
  tag: {
    name: 'Segments',
    description:
      'Groups of contacts: `DYNAMIC` segments are a condition evaluated live, `STATIC` ones a managed list of emails. ' +
      'Segments are the audience of campaigns (`audienceType: SEGMENT`). Secret key.\n\n' +
      '**Slug and events.** A segment gets a slug from its name at creation: lower-cased, every run of characters ' +
      'outside `a-z0-9` replaced by one `-`, trimmed of `-` (`VIP Customers!` → `vip-customers`; `segment` when nothing ' +
      'is left). When another segment of the project has that slug, `-2`, `-3`, … is appended. The slug does not change ' +
      'when the segment is renamed, so the event names workflows listen to stay valid.\n\n' +
      '**Tracked membership.** With `trackMembership: true` a DYNAMIC segment keeps a stored membership. Each contact ' +
      'that joins it gets a SYSTEM event `segment.<slug>.entry`, each one that leaves `segment.<slug>.exit`, usable as ' +
      'workflow triggers and in filters. The stored membership starts empty, so the first computation fires an entry ' +
      'event for every member; every later change fires exactly one event. It changes:\n\n' +
      '- per contact, moments after its data, subscription or events change (any API, import or workflow step);\n' +
      '- fully on `POST /segments/{id}/compute`, and every `SEGMENT_RECOMPUTE_MINUTES` (default 15) on the ' +
      '`segment-recompute` Temporal schedule, which also catches time-based conditions (`within`, `olderThan`).\n\n' +
      'Turning `trackMembership` off forgets the stored membership. A STATIC segment with `trackMembership` records ' +
      'the same events when members are added or removed.\n\n' +
      '**memberCount** is cached: the matching contacts (DYNAMIC) or stored members (STATIC) as counted at creation, ' +
      'on a condition change, on `refresh` and `compute`, and on every member change of a STATIC segment.\n\n' +
      CONDITION_RULES,
  },
  schemas: {
    ...conditionSchemas(exampleCondition),
    Segment: {
      ...object({
        id: uuid,
        ...fields,
        condition: orNull(schemaRef('Condition')),
        memberCount: described({ type: 'integer', minimum: 0 }, 'Cached count; see the tag description.'),
        projectId: uuid,
        createdAt: dateTime,
        updatedAt: dateTime,
      }),
      example: exampleSegment,
    },
    SegmentComputeResult: object({
      entered: described({ type: 'integer', minimum: 0 }, 'Contacts that joined (one entry event each).'),
      exited: described({ type: 'integer', minimum: 0 }, 'Contacts that left (one exit event each).'),
      memberCount: described({ type: 'integer', minimum: 0 }, 'Members stored now.'),
    }),
  },
  paths: {
    '/segments': {
      get: {
        operationId: 'listSegments',
        summary: 'List segments',
        description: 'Every segment of the project, newest first; not paginated.',
        responses: {
          '200': jsonResponse('The segments.', arrayOf(schemaRef('Segment')), okHeaders),
          ...commonErrors(...secretKeyErrors),
        },
      },
      post: {
        operationId: 'createSegment',
        summary: 'Create a segment',
        description: 'Counts the members of a DYNAMIC segment right away (`memberCount`). Computing a tracked segment is a separate step (`compute`).',
        requestBody: jsonBody(createBody),
        responses: {
          '201': jsonResponse('The new segment.', schemaRef('Segment'), { ...okHeaders, example: exampleSegment }),
          '400': badBody,
          '422': invalid,
          ...commonErrors(401, 413, 429),
        },
      },
    },
    '/segments/{id}': {
      parameters: [segmentId],
      get: {
        operationId: 'getSegment',
        summary: 'Get a segment',
        responses: {
          '200': jsonResponse('The segment, with its cached `memberCount`.', schemaRef('Segment'), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
      patch: {
        operationId: 'updateSegment',
        summary: 'Update a segment',
        description:
          'Changes `name`, `description`, `condition` (DYNAMIC only; ignored for STATIC) and `trackMembership`; `type` ' +
          'cannot change and is ignored. A new condition recounts `memberCount`. The slug stays.',
        requestBody: jsonBody(object({ name: fields.name, description: fields.description, condition: schemaRef('Condition'), trackMembership: fields.trackMembership }, [])),
        responses: {
          '200': jsonResponse('The updated segment.', schemaRef('Segment'), okHeaders),
          '400': badBody,
          '422': invalid,
          ...commonErrors(401, 404, 413, 429),
        },
      },
      delete: {
        operationId: 'deleteSegment',
        summary: 'Delete a segment',
        description: 'Refused while a `SCHEDULED` or `SENDING` campaign uses the segment; other campaigns keep no segment.',
        responses: {
          '200': jsonResponse('Deleted.', schemaRef('Success'), { ...okHeaders, example: { success: true } }),
          '409': errorResponse(409, 'SEGMENT_IN_USE', 'A scheduled or sending campaign uses the segment', {
            message: 'The segment is used by a scheduled or sending campaign; cancel the campaign first',
          }),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/segments/{id}/contacts': {
      parameters: [segmentId],
      get: {
        operationId: 'listSegmentContacts',
        summary: "List a segment's contacts",
        description: 'DYNAMIC: the contacts matching the condition now. STATIC: the stored members. Newest contacts first.',
        parameters: [
          parameterRef('Page'),
          queryParam('pageSize', 'Items per page; larger values are clamped to 100.', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
        ],
        responses: {
          '200': jsonResponse('A page of contacts.', offsetPage(schemaRef('Contact')), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/segments/{id}/members': {
      parameters: [segmentId],
      post: {
        operationId: 'addSegmentMembers',
        summary: 'Add members to a STATIC segment',
        description:
          'Adds the contacts with these emails (matched case-insensitively). Emails without a contact are listed in ' +
          '`notFound`, unless `createMissing` creates them (subscribed unless `subscribed: false`).',
        requestBody: jsonBody(
          object(
            {
              emails: emails(email, '1 to 1,000 addresses.'),
              createMissing: described({ type: 'boolean', default: false }, 'Create contacts for unknown emails.'),
              subscribed: described({ type: 'boolean', default: true }, 'Subscription of the contacts created.'),
            },
            ['emails'],
          ),
        ),
        responses: {
          '200': jsonResponse(
            'What happened to the emails.',
            object({
              added: { type: 'integer' },
              alreadyMembers: { type: 'integer' },
              created: { type: 'integer' },
              notFound: described(arrayOf({ type: 'string' }), 'Emails without a contact, as sent (empty with `createMissing`).'),
            }),
            { ...okHeaders, example: { added: 2, alreadyMembers: 1, created: 0, notFound: ['nobody@example.com'] } },
          ),
          '400': staticOnly,
          ...commonErrors(401, 403, 404, 413, 422, 429),
        },
      },
      delete: {
        operationId: 'removeSegmentMembers',
        summary: 'Remove members from a STATIC segment',
        requestBody: jsonBody(object({ emails: emails({ type: 'string' }, '1 to 1,000 strings; those that are no member are ignored.') })),
        responses: {
          '200': jsonResponse('How many members were removed.', object({ removed: { type: 'integer' } }), { ...okHeaders, example: { removed: 2 } }),
          '400': staticOnly,
          ...commonErrors(401, 403, 404, 413, 422, 429),
        },
      },
    },
    '/segments/{id}/compute': {
      parameters: [segmentId],
      post: {
        operationId: 'computeSegment',
        summary: 'Compute the membership of a tracked segment',
        description:
          'Runs the Temporal workflow `segment/<id>` and answers when it ends; when one is already running, waits for ' +
          'that one. Fires one entry or exit event per contact that joined or left. Only for DYNAMIC segments with ' +
          '`trackMembership` (400 otherwise).',
        responses: {
          '200': jsonResponse('What changed.', schemaRef('SegmentComputeResult'), { ...okHeaders, example: { entered: 3, exited: 1, memberCount: 42 } }),
          '400': errorResponse(400, 'BAD_REQUEST', 'The segment is STATIC or not tracked'),
          '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'Temporal is not reachable'),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/segments/{id}/refresh': {
      parameters: [segmentId],
      post: {
        operationId: 'refreshSegmentCount',
        summary: "Refresh a segment's member count",
        description: 'Counts the matching contacts (DYNAMIC) or stored members (STATIC) and caches the count. No events, no membership changes.',
        responses: {
          '200': jsonResponse('The new count.', object({ memberCount: { type: 'integer', minimum: 0 } }), { ...okHeaders, example: { memberCount: 42 } }),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
  },
};
