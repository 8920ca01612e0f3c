import { errorExample, errorResponse, jsonResponse, schemaRef } from '../openapi/builders';
import { offsetPageOf } from '../openapi/operations';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { Campaign, CampaignSendResult, CampaignStatsSummary, CreatedCampaign } from './campaigns-dtos';

export const tag: Tag = {
  name: 'Campaigns',
  description:
    'One email to an audience. `POST /campaigns/{id}/send` starts the Temporal workflow `campaign/<id>`: it waits for ' +
    '`scheduledFor` (a durable timer), resolves the audience when sending starts (`totalRecipients`; contacts created ' +
    'later are not included), then queues and delivers it in batches of up to 1,000 contacts in contact-id order. Each ' +
    'recipient gets it at most once, also across worker crashes and retries: one email record per campaign and contact. ' +
    'With `SEND_RATE_PER_SECOND` set, each batch lasts at least as long as the rate asks (the rate is shared by the ' +
    "project's campaigns sending at the same time). A recipient whose email fails for good does not stop the campaign. " +
    'Status: `DRAFT` -> `SCHEDULED` -> `SENDING` -> `SENT`; `SCHEDULED` or `SENDING` -> `CANCELLED` by cancel (or when ' +
    'sending cannot go on, with `stoppedReason`). Counters: `sentCount` as emails are handed to the transport; ' +
    '`deliveredCount`, `openedCount`, `clickedCount`, `bouncedCount`, `complainedCount` count emails with at least one such ' +
    'mail event. Secret key.',
};

const exampleCampaign = {
  id: '5b1e7c2a-8d4f-4e6a-9b3c-2f1d0e9a8b7c', name: 'March newsletter', description: null, subject: "What's new in March, {{ first name ?? 'friend' }}",
  body: '<h1>March</h1><p>Hi {{ name ?? "there" }}</p>', from: 'news@example.com', fromName: 'Example', replyTo: null, type: 'MARKETING', status: 'SENT',
  audienceType: 'FILTERED', segmentId: null, audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  scheduledFor: '2025-03-01T09:00:00.000Z', totalRecipients: 1200, sentCount: 1198, deliveredCount: 1190, openedCount: 512, clickedCount: 97, bouncedCount: 6,
  complainedCount: 1, stoppedReason: null, projectId: '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a', sentAt: '2025-03-01T09:02:41.000Z',
  createdAt: '2025-02-20T10:00:00.000Z', updatedAt: '2025-02-27T16:30:00.000Z',
};

const unverifiedSender: Response = jsonResponse(
  'The sender domain is not verified for the project (`INTERNAL_SERVER_ERROR`, as the specification fixes it).',
  schemaRef('ErrorResponse'),
  { example: errorExample(403, 'INTERNAL_SERVER_ERROR', 'The sender domain unverified.example is not verified for this project. Add it with POST /domains and publish its DNS records to verify it.', { details: { domain: 'unverified.example' } }) },
);

const invalid: Response = jsonResponse(
  'A field is missing or invalid (`VALIDATION_ERROR`): a required field, `segmentId` for a `SEGMENT` audience (or one that ' +
    'is not a segment of the project), `audienceCondition` for a `FILTERED` one, or a subject or body that does not parse ' +
    '(`invalid_template`). Nothing was written.',
  schemaRef('ErrorResponse'),
  {
    example: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'segmentId', code: 'required', message: 'segmentId is required when audienceType is SEGMENT' }],
    }),
  },
);

const invalidState = (what: string) => errorResponse(409, 'INVALID_STATE', what, { message: 'A SENT campaign cannot be edited' });

export const listCampaigns: EndpointDoc = {
  operationId: 'listCampaigns',
  summary: 'List campaigns',
  description: 'Offset-paginated. An unrecognised `status` is a 400; unrecognised `sort` or `dir` values fall back to the defaults.',
  response: { description: 'A page of campaigns.', shape: offsetPageOf(Campaign) },
};

export const createCampaign: EndpointDoc = {
  operationId: 'createCampaign',
  summary: 'Create a campaign',
  description: 'Creates a `DRAFT`. Checks the audience and the Liquid syntax (422), then the sender domain (403).',
  response: {
    status: 201,
    description: 'The new campaign, in the envelope.',
    shape: CreatedCampaign,
    example: { success: true, data: { ...exampleCampaign, status: 'DRAFT', scheduledFor: null, sentAt: null } },
  },
  errors: { '403': unverifiedSender, '422': invalid },
};

export const getCampaign: EndpointDoc = {
  operationId: 'getCampaign',
  summary: 'Get a campaign',
  response: { description: 'The campaign.', shape: Campaign, example: exampleCampaign },
};

export const updateCampaign: EndpointDoc = {
  operationId: 'updateCampaign',
  summary: 'Update a campaign',
  description:
    'Changes the fields sent, on a `DRAFT` or `SCHEDULED` campaign (409 otherwise); the result is checked as on create. ' +
    'A scheduled campaign sends what it holds when its time comes. `scheduledFor` is set by `send`, not here.',
  response: { description: 'The updated campaign.', shape: Campaign },
  errors: { '403': unverifiedSender, '409': invalidState('The campaign is SENDING, SENT or CANCELLED'), '422': invalid },
};

export const deleteCampaign: EndpointDoc = {
  operationId: 'deleteCampaign',
  summary: 'Delete a campaign',
  description: 'Refused (409) while `SCHEDULED` or `SENDING`: cancel it first. Its emails stay in the activity.',
  response: { description: 'Deleted.', shape: schemaRef('Success'), example: { success: true } },
  errors: { '409': invalidState('The campaign is SCHEDULED or SENDING') },
};

export const duplicateCampaign: EndpointDoc = {
  operationId: 'duplicateCampaign',
  summary: 'Duplicate a campaign',
  description: 'A new `DRAFT` named `<name> (copy)` with the same content and audience, counters at zero; checked as on create.',
  response: { status: 201, description: 'The copy (bare, without the envelope).', shape: Campaign },
  errors: { '403': unverifiedSender, '422': invalid },
};

export const sendCampaign: EndpointDoc = {
  operationId: 'sendCampaign',
  summary: 'Send or schedule a campaign',
  description:
    'Only a `DRAFT` can be sent (409 `INVALID_STATE`). Without `scheduledFor` (or null, or a past time) it is sent now: ' +
    '`SENDING`, message `Campaign is being sent`. A future time schedules it: `SCHEDULED`, the message names the time. ' +
    'Any value a date parser reads is accepted; an unparseable one is a 400. The sender domain and the audience are ' +
    'checked again. 503 when the workflow could not be started; nothing changed then. Sending now when the project has no ' +
    'email left under its billing limit is 403 `BILLING_LIMIT_EXCEEDED`; a campaign that reaches the limit while sending ' +
    'stops as `CANCELLED` with a `stoppedReason` naming it (see Billing limits).',
  requestBody: { required: false },
  response: {
    description: 'Sending or scheduled.',
    shape: CampaignSendResult,
    example: {
      success: true,
      data: { id: exampleCampaign.id, name: exampleCampaign.name, status: 'SCHEDULED', scheduledFor: '2025-03-01T09:00:00.000Z' },
      message: 'Campaign scheduled for 2025-03-01T09:00:00.000Z',
    },
  },
  errors: {
    '400': errorResponse(400, 'BAD_REQUEST', 'scheduledFor is not a date'),
    '403': unverifiedSender,
    '409': invalidState('The campaign is not a DRAFT'),
    '422': invalid,
    '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'The workflow could not be started; try again'),
  },
};

export const cancelCampaign: EndpointDoc = {
  operationId: 'cancelCampaign',
  summary: 'Cancel a campaign',
  description:
    'A `SCHEDULED` or `SENDING` campaign becomes `CANCELLED` and its workflow is cancelled; recipients not yet attempted ' +
    'get nothing (a message already handed to the transport is not recalled). 409 in any other status.',
  response: { description: 'The cancelled campaign.', shape: Campaign },
  errors: { '409': invalidState('The campaign is not SCHEDULED or SENDING') },
};

export const testCampaign: EndpointDoc = {
  operationId: 'testCampaign',
  summary: 'Send a test',
  description:
    'Sends the campaign to one address with the subject prefixed `[Test] `. No contact is created and the counters do not ' +
    'move: it is a one-off email (source `TEST`) delivered like `/v1/send` mail, rendered with no contact data (variables ' +
    'render empty or as their fallback; no unsubscribe link). It counts against the billing limit on emails: past it, ' +
    '403 `BILLING_LIMIT_EXCEEDED`.',
  response: { description: 'Queued for delivery.', shape: schemaRef('Success'), example: { success: true } },
  errors: { '403': unverifiedSender },
};

export const getCampaignStats: EndpointDoc = {
  operationId: 'getCampaignStats',
  summary: 'Get campaign statistics',
  response: {
    description: 'Counts and rates.',
    shape: CampaignStatsSummary,
    example: { totalRecipients: 1200, sent: 1198, delivered: 1190, opened: 512, clicked: 97, bounced: 6, complained: 1, openRate: 0.4303, clickRate: 0.0815, bounceRate: 0.005 },
  },
};
