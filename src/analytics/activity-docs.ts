import type { EndpointDoc, Tag } from '../openapi/types';
import { cursorPageOf } from '../openapi/operations';
import {
  Activity,
  ActivityStats,
  ActivityTypes,
  AnalyticsCampaignStatsList,
  AnalyticsTimeseries,
  AnalyticsTopCampaigns,
  AnalyticsTopEvents,
  RecentActivityCount,
  UpcomingActivity,
} from './activity-dtos';

export const tag: Tag = {
  name: 'Activity and analytics',
  description:
    'What happened to the email of the project: a feed built from the `email.*` events Herald records, ' +
    'milestone counts, series and campaign figures. Everything is in UTC. Secret key.',
};

const exampleActivity = {
  id: 'e2a7c9d1-4b6f-4f3a-8c2e-1d5b7a9f0c36',
  type: 'email.opened',
  contact: { id: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13', email: 'ada@example.com' },
  emailId: '9c1e2f4a-3b5d-4e6f-8a0b-1c2d3e4f5a6b',
  campaignId: '0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f',
  subject: 'Our spring collection',
  createdAt: '2025-01-01T12:00:00.000Z',
};

export const listActivity: EndpointDoc = {
  operationId: 'listActivity',
  summary: 'List activity',
  description:
    'The feed of sends, deliveries, opens, clicks, bounces, complaints, failures and inbound mail: one entry per ' +
    '`email.*` event, newest first, cursor-paginated.',
  response: {
    description: 'A page of activity.',
    shape: cursorPageOf(Activity),
    example: { data: [exampleActivity], cursor: null, hasMore: false, total: 1 },
  },
};

export const getActivityStats: EndpointDoc = {
  operationId: 'getActivityStats',
  summary: 'Get activity statistics',
  description:
    'Of the emails created in the last `days` days, how many were sent, delivered, opened (at least once), clicked ' +
    '(at least once), bounced and complained about; `received` counts the `email.received` events of those days.',
  response: {
    description: 'The counts.',
    shape: ActivityStats,
    example: { sent: 1200, delivered: 1180, opened: 530, clicked: 122, bounced: 9, complained: 1, received: 14 },
  },
};

export const getRecentActivityCount: EndpointDoc = {
  operationId: 'getRecentActivityCount',
  summary: 'Count recent activity',
  description: 'How many feed entries the last 24 hours hold.',
  response: { description: 'The count.', shape: RecentActivityCount, example: { count: 312 } },
};

export const listActivityTypes: EndpointDoc = {
  operationId: 'listActivityTypes',
  summary: 'List activity types',
  description:
    'The activity types the project has at least one entry of (not the full list), in the order ' +
    '`email.sent`, `email.delivered`, `email.opened`, `email.clicked`, `email.bounced`, `email.complained`, ' +
    '`email.failed`, `email.received`.',
  response: { description: 'The types present.', shape: ActivityTypes, example: { types: ['email.sent', 'email.delivered', 'email.opened'] } },
};

export const listUpcomingActivity: EndpointDoc = {
  operationId: 'listUpcomingActivity',
  summary: 'List upcoming sends',
  description:
    'The `SCHEDULED` campaigns, soonest first, and the `WAITING` workflow executions (on a delay or an event), ' +
    'longest waiting first; at most 100 of each.',
  response: {
    description: 'The upcoming sends.',
    shape: UpcomingActivity,
    example: {
      campaigns: [{ id: '0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f', name: 'Spring sale', status: 'SCHEDULED', scheduledFor: '2025-03-01T09:00:00.000Z' }],
      executions: [],
    },
  },
};

export const getAnalyticsTimeseries: EndpointDoc = {
  operationId: 'getAnalyticsTimeseries',
  summary: 'Get the email time series',
  description:
    'One point per UTC day (or hour) up to and including the current one, zeros included: `days` points for `day`, ' +
    '`days` x 24 for `hour`. `date` is the start of the bucket. Each point counts the milestones (first send, ' +
    'delivery, open, click, bounce) that happened in it, of the emails created since the first bucket.',
  response: {
    description: 'The series, oldest point first.',
    shape: AnalyticsTimeseries,
    example: { data: [{ date: '2025-01-01T00:00:00.000Z', sent: 40, delivered: 39, opened: 17, clicked: 4, bounced: 1 }] },
  },
};

export const listTopCampaigns: EndpointDoc = {
  operationId: 'listTopCampaigns',
  summary: 'List top campaigns',
  description: 'The campaigns that sent at least one email, highest `metric` counter first (newest first among equals).',
  response: {
    description: 'The campaigns.',
    shape: AnalyticsTopCampaigns,
    example: {
      data: [
        { id: '0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f', name: 'Spring sale', sent: 1000, delivered: 980, opened: 490, clicked: 98, openRate: 0.5, clickRate: 0.1 },
      ],
    },
  },
};

export const listCampaignStats: EndpointDoc = {
  operationId: 'listCampaignStats',
  summary: 'List campaign statistics',
  description: "The campaigns' counters and rates (0..1), newest campaign first.",
  response: { description: 'The campaigns.', shape: AnalyticsCampaignStatsList },
};

export const listTopEvents: EndpointDoc = {
  operationId: 'listTopEvents',
  summary: 'List top events',
  description:
    'The most frequent names among tracked events (source `API`: those sent to `/v1/track`), all time, most frequent ' +
    'first. The events Herald records itself are left out: the activity endpoints report those.',
  response: { description: 'The event names with their counts.', shape: AnalyticsTopEvents, example: { data: [{ name: 'signed_up', count: 412 }] } },
};
