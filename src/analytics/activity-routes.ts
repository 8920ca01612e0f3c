import { endpoint, type RouteTable } from '../http/endpoint';
import { cursorPage, cursorParams, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/pagination';
import { choiceParam, intParam, uuidParam, type Query } from '../http/query';
import type { FeedCursor } from './activity-queries';
import { ACTIVITY_TYPES } from './activity-service';
import { SERIES_INTERVALS, TOP_CAMPAIGN_METRICS } from './analytics-queries';
import {
  Activity,
  ActivityFeedQuery,
  ActivityStatsQuery,
  AnalyticsCampaignStatsQuery,
  AnalyticsTimeseriesQuery,
  AnalyticsTopCampaignsQuery,
  AnalyticsTopEventsQuery,
  CampaignStats,
} from './activity-dtos';
import * as docs from './activity-docs';

const DEFAULT_DAYS = 30;
const MAX_DAYS = 365;
/** The hourly series covers at most a week (168 points). */
const MAX_HOURLY_DAYS = 7;
const DEFAULT_TOP = 10;

/** A count parameter clamped to 1..`max`, `fallback` when absent; anything but an integer is a 400. */
const count = (query: Query, name: string, fallback: number, max: number) => intParam(query, name, { fallback, min: 1, max, clamp: true });

/** The activity feed (`/activity/*`) and the dashboard analytics (`/analytics/*`), read with the secret key. */
export const activityRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Activity, CampaignStats],
  endpoints: [
    endpoint<undefined, ActivityFeedQuery>({
      method: 'get',
      path: '/activity',
      credential: 'secret',
      query: ActivityFeedQuery,
      doc: docs.listActivity,
      handle: async ({ services, project, query, cursors }) => {
        const filter = {
          type: choiceParam(query, 'type', ACTIVITY_TYPES),
          contactId: uuidParam(query, 'contactId'),
          campaignId: uuidParam(query, 'campaignId'),
        };
        const page = cursorParams(query, cursors.for<FeedCursor>('activity'));
        const { rows, countTotal } = await services.activity.feed(project.id, filter, page);
        const result = await cursorPage(rows, page, (row) => row.position, countTotal);
        return { ...result, data: result.data.map((row) => row.entry) };
      },
    }),
    endpoint<undefined, ActivityStatsQuery>({
      method: 'get',
      path: '/activity/stats',
      credential: 'secret',
      query: ActivityStatsQuery,
      doc: docs.getActivityStats,
      handle: ({ services, project, query }) => services.activity.stats(project.id, count(query, 'days', DEFAULT_DAYS, MAX_DAYS)),
    }),
    endpoint({
      method: 'get',
      path: '/activity/recent-count',
      credential: 'secret',
      doc: docs.getRecentActivityCount,
      handle: ({ services, project }) => services.activity.recentCount(project.id),
    }),
    endpoint({
      method: 'get',
      path: '/activity/types',
      credential: 'secret',
      doc: docs.listActivityTypes,
      handle: ({ services, project }) => services.activity.types(project.id),
    }),
    endpoint({
      method: 'get',
      path: '/activity/upcoming',
      credential: 'secret',
      doc: docs.listUpcomingActivity,
      handle: ({ services, project }) => services.activity.upcoming(project.id),
    }),
    endpoint<undefined, AnalyticsTimeseriesQuery>({
      method: 'get',
      path: '/analytics/timeseries',
      credential: 'secret',
      query: AnalyticsTimeseriesQuery,
      doc: docs.getAnalyticsTimeseries,
      handle: ({ services, project, query }) => {
        const interval = choiceParam(query, 'interval', SERIES_INTERVALS, 'day')!;
        const days = count(query, 'days', DEFAULT_DAYS, interval === 'hour' ? MAX_HOURLY_DAYS : MAX_DAYS);
        return services.activity.timeseries(project.id, interval, interval === 'hour' ? days * 24 : days);
      },
    }),
    endpoint<undefined, AnalyticsTopCampaignsQuery>({
      method: 'get',
      path: '/analytics/top-campaigns',
      credential: 'secret',
      query: AnalyticsTopCampaignsQuery,
      doc: docs.listTopCampaigns,
      handle: ({ services, project, query }) => {
        const metric = choiceParam(query, 'metric', TOP_CAMPAIGN_METRICS, 'sent')!;
        return services.activity.topCampaigns(project.id, metric, count(query, 'limit', DEFAULT_TOP, MAX_PAGE_SIZE));
      },
    }),
    endpoint<undefined, AnalyticsCampaignStatsQuery>({
      method: 'get',
      path: '/analytics/campaign-stats',
      credential: 'secret',
      query: AnalyticsCampaignStatsQuery,
      doc: docs.listCampaignStats,
      handle: ({ services, project, query }) =>
        services.activity.campaignStats(project.id, count(query, 'limit', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)),
    }),
    endpoint<undefined, AnalyticsTopEventsQuery>({
      method: 'get',
      path: '/analytics/top-events',
      credential: 'secret',
      query: AnalyticsTopEventsQuery,
      doc: docs.listTopEvents,
      handle: ({ services, project, query }) => services.activity.topEvents(project.id, count(query, 'limit', DEFAULT_TOP, MAX_PAGE_SIZE)),
    }),
  ],
};
