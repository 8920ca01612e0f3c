import {
  commonErrors,
  dateTime,
  described,
  emailAddress,
  errorExample,
  errorResponse,
  jsonBody,
  jsonResponse,
  object,
  offsetPage,
  orNull,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  singleLine,
  sortDirParam,
  uuid,
} from '../builders';
import type { PathModule, Response, Schema } from '../types';

const campaignId = pathParam('id', 'The campaign.');
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };
const statuses = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'];
const counter = (description: string): Schema => described({ type: 'integer', minimum: 0 }, description);

const exampleCampaign = {
  id: '5b1e7c2a-8d4f-4e6a-9b3c-2f1d0e9a8b7c',
  name: 'March newsletter',
  description: null,
  subject: "What's new in March, {{ first name ?? 'friend' }}",
  body: '<h1>March</h1><p>Hi {{ name ?? "there" }}</p>',
  from: 'news@example.com',
  fromName: 'Example',
  replyTo: null,
  type: 'MARKETING',
  status: 'SENT',
  audienceType: 'FILTERED',
  segmentId: null,
  audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  scheduledFor: '2025-03-01T09:00:00.000Z',
  totalRecipients: 1200,
  sentCount: 1198,
  deliveredCount: 1190,
  openedCount: 512,
  clickedCount: 97,
  bouncedCount: 6,
  complainedCount: 1,
  stoppedReason: null,
  projectId: '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a',
  sentAt: '2025-03-01T09:02:41.000Z',
  createdAt: '2025-02-20T10:00:00.000Z',
  updatedAt: '2025-02-27T16:30:00.000Z',
};

const fields = {
  name: described({ type: 'string', minLength: 1, maxLength: 255 }, 'Internal name; stored trimmed.'),
  description: described(orNull({ type: 'string', maxLength: 2000 }), 'Internal note.'),
  subject: described(singleLine({ type: 'string', minLength: 1, maxLength: 998 }), 'Liquid template (see Templates); no line breaks.'),
  body: described({ type: 'string', minLength: 1 }, 'HTML with Liquid placeholders, rendered for each recipient.'),
  from: described(emailAddress, 'Sender address; its domain (or a parent domain) must be verified for the project (else 403).'),
  fromName: described(orNull(singleLine({ type: 'string', maxLength: 255 })), 'Sender display name; no line breaks.'),
  replyTo: described(orNull(emailAddress), 'Reply-to address.'),
  type: described(
    { type: 'string', enum: ['MARKETING', 'TRANSACTIONAL', 'HEADLESS'], default: 'MARKETING' },
    '`MARKETING` goes to subscribed contacts only and carries the unsubscribe link and headers; `TRANSACTIONAL` and ' +
      '`HEADLESS` go to every contact of the audience. Suppressed addresses never receive a campaign.',
  ),
  audienceType: described({ type: 'string', enum: ['ALL', 'SEGMENT', 'FILTERED'] }, 'Who receives it: every contact, a segment, or a condition.'),
  segmentId: described(orNull(uuid), 'A segment of the project; required when `audienceType` is `SEGMENT`.'),
  audienceCondition: described(
    orNull(schemaRef('Condition')),
    'A filter condition `{ logic, groups }` as segments use it; required when `audienceType` is `FILTERED`. An invalid ' +
      'tree is a 422 whose `errors[].field` points inside it.',
  ),
};

/** `POST /campaigns`: the required fields, and what the audience type needs besides. */
const createBody: Schema = {
  ...object(fields, ['name', 'subject', 'body', 'from', 'audienceType']),
  anyOf: [
    object({ audienceType: { const: 'ALL' } }),
    object({ audienceType: { const: 'SEGMENT' }, segmentId: uuid }),
    object({ audienceType: { const: 'FILTERED' }, audienceCondition: schemaRef('Condition') }),
  ],
};

/** A time `new Date()` reads: an ISO 8601 date-time, or milliseconds since 1970 within its range. */
const sendTime: Schema = { anyOf: [dateTime, { type: 'number', minimum: -8.64e15, maximum: 8.64e15 }] };

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

/** Campaigns: one email to an audience, sent now or scheduled, by the durable workflow `campaign/<id>`. */
export const pathModule: PathModule = {
  tag: {
    name: 'Campaigns',
    description:
      'One email to an audience. `POST /campaigns/{id}/send` starts the Temporal workflow `campaign/<id>`: it waits for ' +
      '`scheduledFor` (a durable timer), resolves the audience when sending starts (`totalRecipients`; contacts created ' +
      'later are not included), then queues and delivers it in batches of up to 250 contacts in contact-id order. Each ' +
      'recipient gets it at most once, also across worker crashes and retries: one email record per campaign and contact. ' +
      'With `SEND_RATE_PER_SECOND` set, each batch lasts at least as long as the rate asks (the rate is shared by the ' +
      "project's campaigns sending at the same time). A recipient whose email fails for good does not stop the campaign. " +
      'Status: `DRAFT` -> `SCHEDULED` -> `SENDING` -> `SENT`; `SCHEDULED` or `SENDING` -> `CANCELLED` by cancel (or when ' +
      'sending cannot go on, with `stoppedReason`). Counters: `sentCount` as emails are handed to the transport; ' +
      '`deliveredCount`, `openedCount`, `clickedCount`, `bouncedCount`, `complainedCount` count emails with at least one such ' +
      'mail event. Secret key.',
  },
  schemas: {
    Campaign: {
      ...object({
        id: uuid,
        ...fields,
        status: { type: 'string', enum: statuses },
        scheduledFor: described(orNull(dateTime), 'When a scheduled send starts (or started).'),
        totalRecipients: counter('The audience size when sending started.'),
        sentCount: counter('Emails handed to the transport.'),
        deliveredCount: counter('Emails delivered.'),
        openedCount: counter('Emails opened at least once.'),
        clickedCount: counter('Emails clicked at least once.'),
        bouncedCount: counter('Emails that bounced for good.'),
        complainedCount: counter('Emails marked as spam.'),
        stoppedReason: described(orNull({ type: 'string' }), 'Why a CANCELLED campaign stopped.'),
        projectId: uuid,
        sentAt: described(orNull(dateTime), 'When every recipient had been attempted.'),
        createdAt: dateTime,
        updatedAt: dateTime,
      }),
      example: exampleCampaign,
    },
    CampaignStatsSummary: object({
      totalRecipients: counter('The audience size when sending started.'),
      sent: counter('Emails handed to the transport.'),
      delivered: counter('Emails delivered.'),
      opened: counter('Emails opened at least once.'),
      clicked: counter('Emails clicked at least once.'),
      bounced: counter('Emails that bounced for good.'),
      complained: counter('Emails marked as spam.'),
      openRate: described({ type: 'number', minimum: 0, maximum: 1 }, '`opened / delivered`; 0 when nothing was delivered.'),
      clickRate: described({ type: 'number', minimum: 0, maximum: 1 }, '`clicked / delivered`; 0 when nothing was delivered.'),
      bounceRate: described({ type: 'number', minimum: 0, maximum: 1 }, '`bounced / sent`; 0 when nothing was sent.'),
    }),
  },
  paths: {
    '/campaigns': {
      get: {
        operationId: 'listCampaigns',
        summary: 'List campaigns',
        description: 'Offset-paginated. An unrecognised `status` is a 400; unrecognised `sort` or `dir` values fall back to the defaults.',
        parameters: [
          parameterRef('Page'),
          queryParam('pageSize', 'Items per page; larger values are clamped to 100.', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
          queryParam('status', 'Only campaigns in this status (case-insensitive).', { type: 'string', enum: statuses }),
          queryParam('search', 'Case-insensitive substring of the name, subject or sender address.', { type: 'string' }),
          queryParam('sort', 'Sort key; `name` sorts case-insensitively.', { type: 'string', enum: ['createdAt', 'name', 'updatedAt'], default: 'createdAt' }),
          sortDirParam(),
        ],
        responses: {
          '200': jsonResponse('A page of campaigns.', offsetPage(schemaRef('Campaign')), okHeaders),
          ...commonErrors(400, ...secretKeyErrors),
        },
      },
      post: {
        operationId: 'createCampaign',
        summary: 'Create a campaign',
        description: 'Creates a `DRAFT`. Checks the audience and the Liquid syntax (422), then the sender domain (403).',
        requestBody: jsonBody(createBody),
        responses: {
          '201': jsonResponse('The new campaign, in the envelope.', object({ success: { const: true }, data: schemaRef('Campaign') }), {
            ...okHeaders,
            example: { success: true, data: { ...exampleCampaign, status: 'DRAFT', scheduledFor: null, sentAt: null } },
          }),
          '403': unverifiedSender,
          '422': invalid,
          ...commonErrors(400, 401, 413, 429),
        },
      },
    },
    '/campaigns/{id}': {
      parameters: [campaignId],
      get: {
        operationId: 'getCampaign',
        summary: 'Get a campaign',
        responses: { '200': jsonResponse('The campaign.', schemaRef('Campaign'), okHeaders), ...commonErrors(...secretKeyErrors, 404) },
      },
      put: {
        operationId: 'updateCampaign',
        summary: 'Update a campaign',
        description:
          'Changes the fields sent, on a `DRAFT` or `SCHEDULED` campaign (409 otherwise); the result is checked as on create. ' +
          'A scheduled campaign sends what it holds when its time comes. `scheduledFor` is set by `send`, not here.',
        requestBody: jsonBody(object(fields, [])),
        responses: {
          '200': jsonResponse('The updated campaign.', schemaRef('Campaign'), okHeaders),
          '403': unverifiedSender,
          '409': invalidState('The campaign is SENDING, SENT or CANCELLED'),
          '422': invalid,
          ...commonErrors(400, 401, 404, 413, 429),
        },
      },
      delete: {
        operationId: 'deleteCampaign',
        summary: 'Delete a campaign',
        description: 'Refused (409) while `SCHEDULED` or `SENDING`: cancel it first. Its emails stay in the activity.',
        responses: {
          '200': jsonResponse('Deleted.', schemaRef('Success'), { ...okHeaders, example: { success: true } }),
          '409': invalidState('The campaign is SCHEDULED or SENDING'),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/campaigns/{id}/duplicate': {
      parameters: [campaignId],
      post: {
        operationId: 'duplicateCampaign',
        summary: 'Duplicate a campaign',
        description: 'A new `DRAFT` named `<name> (copy)` with the same content and audience, counters at zero; checked as on create.',
        responses: {
          '201': jsonResponse('The copy (bare, without the envelope).', schemaRef('Campaign'), okHeaders),
          '403': unverifiedSender,
          '422': invalid,
          ...commonErrors(401, 404, 429),
        },
      },
    },
    '/campaigns/{id}/send': {
      parameters: [campaignId],
      post: {
        operationId: 'sendCampaign',
        summary: 'Send or schedule a campaign',
        description:
          'Only a `DRAFT` can be sent (409 `INVALID_STATE`). Without `scheduledFor` (or null, or a past time) it is sent now: ' +
          '`SENDING`, message `Campaign is being sent`. A future time schedules it: `SCHEDULED`, the message names the time. ' +
          'Any value a date parser reads is accepted; an unparseable one is a 400. The sender domain and the audience are ' +
          'checked again. 503 when the workflow could not be started; nothing changed then. Sending now when the project has no ' +
          'email left under its billing limit is 403 `BILLING_LIMIT_EXCEEDED`; a campaign that reaches the limit while sending ' +
          'stops as `CANCELLED` with a `stoppedReason` naming it (see Billing limits).',
        requestBody: jsonBody(object({ scheduledFor: described(orNull(sendTime), 'When to send; omit or null for now.') }, []), false),
        responses: {
          '200': jsonResponse(
            'Sending or scheduled.',
            object({
              success: { const: true },
              data: object({ id: uuid, name: { type: 'string' }, status: { type: 'string', enum: ['SENDING', 'SCHEDULED'] }, scheduledFor: { ...dateTime, type: ['string', 'null'] } }),
              message: { type: 'string' },
            }),
            {
              ...okHeaders,
              example: {
                success: true,
                data: { id: exampleCampaign.id, name: exampleCampaign.name, status: 'SCHEDULED', scheduledFor: '2025-03-01T09:00:00.000Z' },
                message: 'Campaign scheduled for 2025-03-01T09:00:00.000Z',
              },
            },
          ),
          '400': errorResponse(400, 'BAD_REQUEST', 'scheduledFor is not a date'),
          '403': unverifiedSender,
          '409': invalidState('The campaign is not a DRAFT'),
          '422': invalid,
          '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'The workflow could not be started; try again'),
          ...commonErrors(401, 404, 429),
        },
      },
    },
    '/campaigns/{id}/cancel': {
      parameters: [campaignId],
      post: {
        operationId: 'cancelCampaign',
        summary: 'Cancel a campaign',
        description:
          'A `SCHEDULED` or `SENDING` campaign becomes `CANCELLED` and its workflow is cancelled; recipients not yet attempted ' +
          'get nothing (a message already handed to the transport is not recalled). 409 in any other status.',
        responses: {
          '200': jsonResponse('The cancelled campaign.', schemaRef('Campaign'), okHeaders),
          '409': invalidState('The campaign is not SCHEDULED or SENDING'),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/campaigns/{id}/test': {
      parameters: [campaignId],
      post: {
        operationId: 'testCampaign',
        summary: 'Send a test',
        description:
          'Sends the campaign to one address with the subject prefixed `[Test] `. No contact is created and the counters do not ' +
          'move: it is a one-off email (source `TEST`) delivered like `/v1/send` mail, rendered with no contact data (variables ' +
          'render empty or as their fallback; no unsubscribe link). It counts against the billing limit on emails: past it, ' +
          '403 `BILLING_LIMIT_EXCEEDED`.',
        requestBody: jsonBody(object({ email: emailAddress })),
        responses: {
          '200': jsonResponse('Queued for delivery.', schemaRef('Success'), { ...okHeaders, example: { success: true } }),
          '403': unverifiedSender,
          ...commonErrors(401, 404, 422, 429),
        },
      },
    },
    '/campaigns/{id}/stats': {
      parameters: [campaignId],
      get: {
        operationId: 'getCampaignStats',
        summary: 'Get campaign statistics',
        responses: {
          '200': jsonResponse('Counts and rates.', schemaRef('CampaignStatsSummary'), {
            ...okHeaders,
            example: { totalRecipients: 1200, sent: 1198, delivered: 1190, opened: 512, clicked: 97, bounced: 6, complained: 1, openRate: 0.4303, clickRate: 0.0815, bounceRate: 0.005 },
          }),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
  },
};
