import { arrayOf, errorExample, errorResponse, jsonResponse, offsetPage, schemaRef } from '../openapi/builders';
import { CONDITION_RULES } from '../openapi/conditions';
import { dtoRef } from '../openapi/operations';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { Segment, SegmentComputeResult, SegmentMemberCount, SegmentMembersAdded, SegmentMembersRemoved } from './segments-dtos';

export const tag: Tag = {
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
};

/** The example of the `Condition` schema. */
export const exampleCondition = {
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'event.purchase', operator: 'within', value: 30, unit: 'days' }] }],
};

const exampleSegment = {
  id: '7c2e4a1b-3d5f-4e6a-8b9c-0d1e2f3a4b5c', name: 'VIP Customers', description: 'Pro plan, bought in the last 30 days', type: 'DYNAMIC',
  condition: exampleCondition, trackMembership: true, memberCount: 42, projectId: '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a',
  createdAt: '2025-01-01T12:00:00.000Z', updatedAt: '2025-01-02T08:30:00.000Z',
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

export const listSegments: EndpointDoc = {
  operationId: 'listSegments',
  summary: 'List segments',
  description: 'Every segment of the project, newest first; not paginated.',
  response: { description: 'The segments.', shape: arrayOf(dtoRef(Segment)) },
};

export const createSegment: EndpointDoc = {
  operationId: 'createSegment',
  summary: 'Create a segment',
  description: 'Counts the members of a DYNAMIC segment right away (`memberCount`). Computing a tracked segment is a separate step (`compute`).',
  response: { status: 201, description: 'The new segment.', shape: Segment, example: exampleSegment },
  errors: { '400': badBody, '422': invalid },
};

export const getSegment: EndpointDoc = {
  operationId: 'getSegment',
  summary: 'Get a segment',
  response: { description: 'The segment, with its cached `memberCount`.', shape: Segment },
};

export const updateSegment: EndpointDoc = {
  operationId: 'updateSegment',
  summary: 'Update a segment',
  description:
    'Changes `name`, `description`, `condition` (DYNAMIC only; ignored for STATIC) and `trackMembership`; `type` ' +
    'cannot change and is ignored. A new condition recounts `memberCount`. The slug stays.',
  response: { description: 'The updated segment.', shape: Segment },
  errors: { '400': badBody, '422': invalid },
};

export const deleteSegment: EndpointDoc = {
  operationId: 'deleteSegment',
  summary: 'Delete a segment',
  description: 'Refused while a `SCHEDULED` or `SENDING` campaign uses the segment; other campaigns keep no segment.',
  response: { description: 'Deleted.', shape: schemaRef('Success'), example: { success: true } },
  errors: {
    '409': errorResponse(409, 'SEGMENT_IN_USE', 'A scheduled or sending campaign uses the segment', {
      message: 'The segment is used by a scheduled or sending campaign; cancel the campaign first',
    }),
  },
};

export const listSegmentContacts: EndpointDoc = {
  operationId: 'listSegmentContacts',
  summary: "List a segment's contacts",
  description: 'DYNAMIC: the contacts matching the condition now. STATIC: the stored members. Newest contacts first.',
  response: { description: 'A page of contacts.', shape: offsetPage(schemaRef('Contact')) },
};

export const addSegmentMembers: EndpointDoc = {
  operationId: 'addSegmentMembers',
  summary: 'Add members to a STATIC segment',
  description:
    'Adds the contacts with these emails (matched case-insensitively). Emails without a contact are listed in ' +
    '`notFound`, unless `createMissing` creates them (subscribed unless `subscribed: false`).',
  response: {
    description: 'What happened to the emails.',
    shape: SegmentMembersAdded,
    example: { added: 2, alreadyMembers: 1, created: 0, notFound: ['nobody@example.com'] },
  },
  errors: { '400': staticOnly },
};

export const removeSegmentMembers: EndpointDoc = {
  operationId: 'removeSegmentMembers',
  summary: 'Remove members from a STATIC segment',
  response: { description: 'How many members were removed.', shape: SegmentMembersRemoved, example: { removed: 2 } },
  errors: { '400': staticOnly },
};

export const computeSegment: EndpointDoc = {
  operationId: 'computeSegment',
  summary: 'Compute the membership of a tracked segment',
  description:
    'Runs the Temporal workflow `segment/<id>` and answers when it ends; when one is already running, waits for ' +
    'that one. Fires one entry or exit event per contact that joined or left. Only for DYNAMIC segments with ' +
    '`trackMembership` (400 otherwise).',
  response: { description: 'What changed.', shape: SegmentComputeResult, example: { entered: 3, exited: 1, memberCount: 42 } },
  errors: {
    '400': errorResponse(400, 'BAD_REQUEST', 'The segment is STATIC or not tracked'),
    '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'Temporal is not reachable'),
  },
};

export const refreshSegmentCount: EndpointDoc = {
  operationId: 'refreshSegmentCount',
  summary: "Refresh a segment's member count",
  description: 'Counts the matching contacts (DYNAMIC) or stored members (STATIC) and caches the count. No events, no membership changes.',
  response: { description: 'The new count.', shape: SegmentMemberCount, example: { memberCount: 42 } },
};
