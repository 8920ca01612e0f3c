import {
  arrayOf,
  commonErrors,
  cursorPage,
  dateTime,
  described,
  email,
  jsonResponse,
  object,
  parameterRef,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  uuid,
} from '../builders';
import type { Operation, PathModule, Schema } from '../types';

const errors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };
const count: Schema = { type: 'integer', minimum: 0 };
const rate: Schema = { type: 'number', minimum: 0, maximum: 1 };
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const activityTypes = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.received',
];

const days = (max: number, extra = '') =>
  queryParam('days', `How many days back, default 30; clamped to 1..${max}.${extra} Anything but an integer answers 400.`, {
    type: 'integer',
    minimum: 1,
    maximum: max,
    default: 30,
  });
const limit = (fallback: number) =>
  queryParam('limit', `How many entries, default ${fallback}; clamped to 1..100. Anything but an integer answers 400.`, {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: fallback,
  });

interface ReadOptions {
  description: string;
  answer: string;
  schema: Schema;
  example?: unknown;
  parameters?: Operation['parameters'];
}

/** A read-only GET; one with query parameters can answer 400 for a bad one. */
function read(operationId: string, summary: string, options: ReadOptions): { get: Operation } {
  const { description, answer, schema, example, parameters } = options;
  return {
    get: {
      operationId,
      summary,
      description,
      ...(parameters ? { parameters } : {}),
      responses: {
        '200': jsonResponse(answer, schema, example === undefined ? okHeaders : { ...okHeaders, example }),
        ...commonErrors(...(parameters ? [400 as const] : []), ...errors),
      },
    },
  };
}

const campaignCounters = {
  id: uuid,
  name: { type: 'string' },
  sent: count,
  delivered: count,
  opened: described(count, 'Emails opened at least once.'),
  clicked: described(count, 'Emails clicked at least once.'),
  openRate: described(rate, 'opened / delivered; 0 when nothing was delivered.'),
  clickRate: described(rate, 'clicked / delivered; 0 when nothing was delivered.'),
};

/** The activity feed and the dashboard's analytics. */
export const pathModule: PathModule = {
  tag: {
    name: 'Activity and analytics',
    description:
      'What happened to the email of the project: a feed built from the `email.*` events Herald records, ' +
      'milestone counts, series and campaign figures. Everything is in UTC. Secret key.',
  },
  schemas: {
    Activity: {
      ...object({
        id: described(uuid, 'The id of the event the entry is.'),
        type: { type: 'string', enum: activityTypes },
        contact: described(nullable(object({ id: uuid, email })), 'The contact; null for an event without one.'),
        emailId: nullable(uuid),
        campaignId: described(nullable(uuid), 'The campaign the email belongs to, if any.'),
        subject: nullable({ type: 'string' }),
        createdAt: dateTime,
      }),
      example: {
        id: 'e2a7c9d1-4b6f-4f3a-8c2e-1d5b7a9f0c36',
        type: 'email.opened',
        contact: { id: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13', email: 'ada@example.com' },
        emailId: '9c1e2f4a-3b5d-4e6f-8a0b-1c2d3e4f5a6b',
        campaignId: '0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f',
        subject: 'Our spring collection',
        createdAt: '2025-01-01T12:00:00.000Z',
      },
    },
    CampaignStats: object({
      ...campaignCounters,
      status: { type: 'string', enum: ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] },
      totalRecipients: count,
      bounced: count,
      complained: count,
      bounceRate: described(rate, 'bounced / sent; 0 when nothing was sent.'),
      sentAt: nullable(dateTime),
    }),
  },
  paths: {
    '/activity': read('listActivity', 'List activity', {
      description:
        'The feed of sends, deliveries, opens, clicks, bounces, complaints, failures and inbound mail: one entry per ' +
        '`email.*` event, newest first, cursor-paginated.',
      answer: 'A page of activity.',
      schema: cursorPage(schemaRef('Activity')),
      parameters: [
        parameterRef('Limit'),
        parameterRef('Cursor'),
        queryParam('type', 'Only entries of this type; any other value answers 400.', { type: 'string', enum: activityTypes }),
        queryParam('contactId', "Only this contact's entries; not a UUID answers 400.", uuid),
        queryParam('campaignId', "Only entries about this campaign's emails; not a UUID answers 400.", uuid),
      ],
    }),
    '/activity/stats': read('getActivityStats', 'Get activity statistics', {
      description:
        'Of the emails created in the last `days` days, how many were sent, delivered, opened (at least once), clicked ' +
        '(at least once), bounced and complained about; `received` counts the `email.received` events of those days.',
      answer: 'The counts.',
      schema: object({ sent: count, delivered: count, opened: count, clicked: count, bounced: count, complained: count, received: count }),
      example: { sent: 1200, delivered: 1180, opened: 530, clicked: 122, bounced: 9, complained: 1, received: 14 },
      parameters: [days(365)],
    }),
    '/activity/recent-count': read('getRecentActivityCount', 'Count recent activity', {
      description: 'How many feed entries the last 24 hours hold.',
      answer: 'The count.',
      schema: object({ count }),
      example: { count: 312 },
    }),
    '/activity/types': read('listActivityTypes', 'List activity types', {
      description:
        'The activity types the project has at least one entry of (not the full list), in the order ' +
        '`email.sent`, `email.delivered`, `email.opened`, `email.clicked`, `email.bounced`, `email.complained`, ' +
        '`email.failed`, `email.received`.',
      answer: 'The types present.',
      schema: object({ types: arrayOf({ type: 'string', enum: activityTypes }) }),
      example: { types: ['email.sent', 'email.delivered', 'email.opened'] },
    }),
    '/activity/upcoming': read('listUpcomingActivity', 'List upcoming sends', {
      description:
        'The `SCHEDULED` campaigns, soonest first, and the `WAITING` workflow executions (on a delay or an event), ' +
        'longest waiting first; at most 100 of each.',
      answer: 'The upcoming sends.',
      schema: object({
        campaigns: arrayOf(
          object({ id: uuid, name: { type: 'string' }, status: { type: 'string', enum: ['SCHEDULED'] }, scheduledFor: dateTime }),
        ),
        executions: arrayOf(
          object({ id: uuid, workflowId: uuid, workflowName: { type: 'string' }, contactId: { ...uuid, type: ['string', 'null'] }, currentStepId: { ...uuid, type: ['string', 'null'] }, startedAt: dateTime }),
        ),
      }),
      example: {
        campaigns: [
          { id: '0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f', name: 'Spring sale', status: 'SCHEDULED', scheduledFor: '2025-03-01T09:00:00.000Z' },
        ],
        executions: [],
      },
    }),
    '/analytics/timeseries': read('getAnalyticsTimeseries', 'Get the email time series', {
      description:
        'One point per UTC day (or hour) up to and including the current one, zeros included: `days` points for `day`, ' +
        '`days` x 24 for `hour`. `date` is the start of the bucket. Each point counts the milestones (first send, ' +
        'delivery, open, click, bounce) that happened in it, of the emails created since the first bucket.',
      answer: 'The series, oldest point first.',
      schema: object({
        data: arrayOf(object({ date: dateTime, sent: count, delivered: count, opened: count, clicked: count, bounced: count })),
      }),
      example: { data: [{ date: '2025-01-01T00:00:00.000Z', sent: 40, delivered: 39, opened: 17, clicked: 4, bounced: 1 }] },
      parameters: [
        days(365, ' With `interval=hour` it is clamped to 1..7 (at most 168 points).'),
        queryParam('interval', '`day` (default) or `hour`; anything else answers 400.', {
          type: 'string',
          enum: ['day', 'hour'],
          default: 'day',
        }),
      ],
    }),
    '/analytics/top-campaigns': read('listTopCampaigns', 'List top campaigns', {
      description: 'The campaigns that sent at least one email, highest `metric` counter first (newest first among equals).',
      answer: 'The campaigns.',
      schema: object({ data: arrayOf(object(campaignCounters)) }),
      example: {
        data: [
          {
            id: '0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f',
            name: 'Spring sale',
            sent: 1000,
            delivered: 980,
            opened: 490,
            clicked: 98,
            openRate: 0.5,
            clickRate: 0.1,
          },
        ],
      },
      parameters: [
        queryParam('metric', '`sent` (default), `opened` or `clicked`; anything else answers 400.', {
          type: 'string',
          enum: ['sent', 'opened', 'clicked'],
          default: 'sent',
        }),
        limit(10),
      ],
    }),
    '/analytics/campaign-stats': read('listCampaignStats', 'List campaign statistics', {
      description: "The campaigns' counters and rates (0..1), newest campaign first.",
      answer: 'The campaigns.',
      schema: object({ data: arrayOf(schemaRef('CampaignStats')) }),
      parameters: [limit(20)],
    }),
    '/analytics/top-events': read('listTopEvents', 'List top events', {
      description:
        'The most frequent names among tracked events (source `API`: those sent to `/v1/track`), all time, most frequent ' +
        'first. The events Herald records itself are left out: the activity endpoints report those.',
      answer: 'The event names with their counts.',
      schema: object({ data: arrayOf(object({ name: { type: 'string' }, count })) }),
      example: { data: [{ name: 'signed_up', count: 412 }] },
      parameters: [limit(10)],
    }),
  },
};
