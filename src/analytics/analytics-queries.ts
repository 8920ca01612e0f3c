import type { DataSource } from 'typeorm';

/** The SQL of `/analytics/*`: email series, campaign counters and event-name frequencies. */

export const SERIES_INTERVALS = ['day', 'hour'] as const;
export type SeriesInterval = (typeof SERIES_INTERVALS)[number];

/** One bucket of the series; `date` is the bucket's start (UTC). */
export interface SeriesPoint {
  date: Date;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
}

/**
 * `points` consecutive UTC buckets of one `interval`, the last one holding now, each with
 * the milestones (sent, delivered, ...) of the emails created since the first bucket that
 * fell into it. Buckets without any are there with zeros.
 */
export async function emailSeries(db: DataSource, projectId: string, interval: SeriesInterval, points: number): Promise<SeriesPoint[]> {
  return db.query(
    `WITH span AS (
       SELECT date_trunc($2, now() AT TIME ZONE 'UTC') AS last_bucket,
              date_trunc($2, now() AT TIME ZONE 'UTC') - ($3::int - 1) * $4::interval AS first_bucket
     ),
     buckets AS (
       SELECT generate_series(first_bucket, last_bucket, $4::interval) AS bucket FROM span
     ),
     milestones AS (
       SELECT date_trunc($2, m.at AT TIME ZONE 'UTC') AS bucket, m.metric
         FROM span, emails e
        CROSS JOIN LATERAL (VALUES ('sent', e.sent_at), ('delivered', e.delivered_at), ('opened', e.opened_at),
                                   ('clicked', e.clicked_at), ('bounced', e.bounced_at)) AS m(metric, at)
        WHERE e.project_id = $1 AND e.created_at >= span.first_bucket AT TIME ZONE 'UTC' AND m.at IS NOT NULL
     )
     SELECT b.bucket AT TIME ZONE 'UTC' AS date,
            count(*) FILTER (WHERE m.metric = 'sent')::int AS sent,
            count(*) FILTER (WHERE m.metric = 'delivered')::int AS delivered,
            count(*) FILTER (WHERE m.metric = 'opened')::int AS opened,
            count(*) FILTER (WHERE m.metric = 'clicked')::int AS clicked,
            count(*) FILTER (WHERE m.metric = 'bounced')::int AS bounced
       FROM buckets b LEFT JOIN milestones m ON m.bucket = b.bucket
      GROUP BY b.bucket
      ORDER BY b.bucket`,
    [projectId, interval, points, `1 ${interval}`],
  );
}

/** A campaign's counters and rates (0..1; opens and clicks per delivered, bounces per sent, 0 when nothing to divide by). */
const CAMPAIGN_COUNTERS = `id, name, sent_count AS sent, delivered_count AS delivered, opened_count AS opened, clicked_count AS clicked,
  coalesce(opened_count::float8 / nullif(delivered_count, 0), 0) AS "openRate",
  coalesce(clicked_count::float8 / nullif(delivered_count, 0), 0) AS "clickRate"`;

export const TOP_CAMPAIGN_METRICS = ['sent', 'opened', 'clicked'] as const;
export type TopCampaignMetric = (typeof TOP_CAMPAIGN_METRICS)[number];

const METRIC_COLUMNS: Record<TopCampaignMetric, string> = { sent: 'sent_count', opened: 'opened_count', clicked: 'clicked_count' };

/** A campaign in the top list. */
export interface CampaignCountersRow {
  id: string;
  name: string;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  openRate: number;
  clickRate: number;
}

/** The `limit` campaigns that sent anything, highest `metric` counter first. */
export async function topCampaigns(db: DataSource, projectId: string, metric: TopCampaignMetric, limit: number): Promise<CampaignCountersRow[]> {
  return db.query(
    `SELECT ${CAMPAIGN_COUNTERS} FROM campaigns
      WHERE project_id = $1 AND sent_count > 0
      ORDER BY ${METRIC_COLUMNS[metric]} DESC, created_at DESC, id
      LIMIT $2`,
    [projectId, limit],
  );
}

/** A campaign's full breakdown. */
export interface CampaignStatsRow extends CampaignCountersRow {
  status: string;
  totalRecipients: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  sentAt: Date | null;
}

/** The breakdown of the project's `limit` newest campaigns. */
export async function campaignStats(db: DataSource, projectId: string, limit: number): Promise<CampaignStatsRow[]> {
  return db.query(
    `SELECT ${CAMPAIGN_COUNTERS}, status, total_recipients AS "totalRecipients",
            bounced_count AS bounced, complained_count AS complained,
            coalesce(bounced_count::float8 / nullif(sent_count, 0), 0) AS "bounceRate", sent_at AS "sentAt"
       FROM campaigns
      WHERE project_id = $1
      ORDER BY created_at DESC, id DESC
      LIMIT $2`,
    [projectId, limit],
  );
}

/** The `limit` most frequent names of tracked (source `API`) events, all time. */
export async function topTrackedEvents(db: DataSource, projectId: string, limit: number): Promise<{ name: string; count: number }[]> {
  return db.query(
    `SELECT name, count(*)::int AS count FROM events
      WHERE project_id = $1 AND source = 'API'
      GROUP BY name
      ORDER BY count DESC, name
      LIMIT $2`,
    [projectId, limit],
  );
}
