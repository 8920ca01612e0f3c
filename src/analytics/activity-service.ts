import type { DataSource } from 'typeorm';
import type { CursorParams } from '../http/pagination';
import { waitingExecutions } from '../automations/workflows-queries';
import {
  countFeed,
  countRecentActivity,
  emailTotals,
  presentTypes,
  readFeed,
  scheduledCampaigns,
  type FeedCursor,
  type FeedFilter,
  type FeedRow,
} from './activity-queries';
import {
  campaignStats,
  emailSeries,
  topCampaigns,
  topTrackedEvents,
  type SeriesInterval,
  type TopCampaignMetric,
} from './analytics-queries';

/** The activity types: the names of the `email.*` events Herald records. */
export const ACTIVITY_TYPES = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.received',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** How many scheduled campaigns, and how many waiting executions, `/activity/upcoming` lists at most. */
const UPCOMING_LIMIT = 100;

/** A feed entry as the API shows it. */
function activityView(row: FeedRow) {
  return {
    id: row.id,
    type: row.type,
    contact: row.contact_id === null ? null : { id: row.contact_id, email: row.contact_email },
    emailId: row.email_id,
    campaignId: row.campaign_id,
    subject: row.subject,
    createdAt: row.created_at,
  };
}

/** The activity feed and the dashboard's analytics, read-only over emails, events and campaigns. */
export class ActivityService {
  constructor(private readonly dataSource: DataSource) {}

  /** `limit + 1` feed entries (newest first) with their keyset positions, and the total for a first page. */
  async feed(projectId: string, filter: FeedFilter, page: CursorParams<FeedCursor>) {
    const rows = await readFeed(this.dataSource, projectId, filter, page.limit + 1, page.cursor);
    return {
      rows: rows.map((row) => ({ entry: activityView(row), position: { v: row.sort_value, id: row.id } })),
      countTotal: () => countFeed(this.dataSource, projectId, filter),
    };
  }

  /** Milestone counts of the emails created in the last `days` days, and emails received. */
  stats(projectId: string, days: number) {
    return emailTotals(this.dataSource, projectId, days);
  }

  /** Feed entries of the last 24 hours. */
  async recentCount(projectId: string) {
    return { count: await countRecentActivity(this.dataSource, projectId) };
  }

  /** The activity types the project has at least one entry of, in ACTIVITY_TYPES order. */
  async types(projectId: string) {
    return { types: await presentTypes(this.dataSource, projectId, ACTIVITY_TYPES) };
  }

  /** Scheduled campaigns, soonest first, and WAITING workflow executions, longest waiting first. */
  async upcoming(projectId: string) {
    const [campaigns, executions] = await Promise.all([
      scheduledCampaigns(this.dataSource, projectId, UPCOMING_LIMIT),
      waitingExecutions(this.dataSource.manager, projectId, UPCOMING_LIMIT),
    ]);
    return {
      campaigns: campaigns.map((row) => ({ id: row.id, name: row.name, status: row.status, scheduledFor: row.scheduled_for })),
      executions: executions.map((row) => ({
        id: row.id,
        workflowId: row.workflow_id,
        workflowName: row.workflow_name,
        contactId: row.contact_id,
        currentStepId: row.current_step_id,
        startedAt: row.started_at,
      })),
    };
  }

  /** One point per `interval` over the last `points` intervals, zeros included. */
  async timeseries(projectId: string, interval: SeriesInterval, points: number) {
    return { data: await emailSeries(this.dataSource, projectId, interval, points) };
  }

  /** The campaigns with the highest `metric` counter. */
  async topCampaigns(projectId: string, metric: TopCampaignMetric, limit: number) {
    return { data: await topCampaigns(this.dataSource, projectId, metric, limit) };
  }

  /** Counters and rates of the newest campaigns. */
  async campaignStats(projectId: string, limit: number) {
    return { data: await campaignStats(this.dataSource, projectId, limit) };
  }

  /** The most frequent tracked event names. */
  async topEvents(projectId: string, limit: number) {
    return { data: await topTrackedEvents(this.dataSource, projectId, limit) };
  }
}
