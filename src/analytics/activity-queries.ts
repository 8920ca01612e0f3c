import type { DataSource } from 'typeorm';

/**
 * The SQL of the activity feed and its counts. The feed's rows are the `email.*` events;
 * `IS_ACTIVITY` repeats the predicate of the partial index events_activity_idx
 * (migrations/1764050000000-activity-index.ts) word for word so the planner can use it.
 */
const IS_ACTIVITY = `e.name LIKE 'email.%'`;

/** The email an event is about; NULL when its `emailId` is missing or not a UUID. */
const EVENT_EMAIL_ID = `CASE WHEN e.data->>'emailId' ~* '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' THEN (e.data->>'emailId')::uuid END`;

/** Which entries of the feed to read. */
export interface FeedFilter {
  type?: string;
  contactId?: string;
  campaignId?: string;
}

/** A keyset position in the feed: the event's `created_at` as text and its id. */
export interface FeedCursor {
  v: string;
  id: string;
}

/** One feed entry as read from the database. */
export interface FeedRow {
  id: string;
  type: string;
  contact_id: string | null;
  contact_email: string | null;
  email_id: string | null;
  campaign_id: string | null;
  subject: string | null;
  created_at: Date;
  sort_value: string;
}

function feedWhere(projectId: string, filter: FeedFilter) {
  const params: unknown[] = [projectId];
  const clauses = ['e.project_id = $1', IS_ACTIVITY];
  if (filter.type) {
    params.push(filter.type);
    clauses.push(`e.name = $${params.length}`);
  }
  if (filter.contactId) {
    params.push(filter.contactId);
    clauses.push(`e.contact_id = $${params.length}`);
  }
  if (filter.campaignId) {
    params.push(filter.campaignId);
    clauses.push(`m.campaign_id = $${params.length}`);
  }
  return { params, where: clauses.join(' AND ') };
}

const FEED_FROM = `events e
  LEFT JOIN contacts c ON c.id = e.contact_id
  LEFT JOIN emails m ON m.id = ${EVENT_EMAIL_ID} AND m.project_id = e.project_id`;

/** `limit` feed entries after `cursor`, newest first, each joined to its contact and email. */
export async function readFeed(db: DataSource, projectId: string, filter: FeedFilter, limit: number, cursor?: FeedCursor): Promise<FeedRow[]> {
  const { params, where } = feedWhere(projectId, filter);
  let keyset = '';
  if (cursor) {
    params.push(cursor.v, cursor.id);
    keyset = ` AND (e.created_at, e.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(limit);
  return db.query(
    `SELECT e.id, e.name AS type, e.contact_id, c.email AS contact_email, e.data->>'emailId' AS email_id,
            m.campaign_id, coalesce(m.subject, e.data->>'subject') AS subject,
            e.created_at, e.created_at::text AS sort_value
       FROM ${FEED_FROM}
      WHERE ${where}${keyset}
      ORDER BY e.created_at DESC, e.id DESC
      LIMIT $${params.length}`,
    params,
  );
}

/** How many feed entries match the filter. */
export async function countFeed(db: DataSource, projectId: string, filter: FeedFilter): Promise<number> {
  const { params, where } = feedWhere(projectId, filter);
  const [row] = await db.query(`SELECT count(*)::int AS n FROM ${FEED_FROM} WHERE ${where}`, params);
  return row.n;
}

/** Feed entries of the last 24 hours. */
export async function countRecentActivity(db: DataSource, projectId: string): Promise<number> {
  const [row] = await db.query(
    `SELECT count(*)::int AS n FROM events e
      WHERE e.project_id = $1 AND ${IS_ACTIVITY} AND e.created_at > now() - interval '24 hours'`,
    [projectId],
  );
  return row.n;
}

/** Which of `types` the project has at least one event of, in the given order (one index probe each). */
export async function presentTypes(db: DataSource, projectId: string, types: readonly string[]): Promise<string[]> {
  const rows: { name: string }[] = await db.query(
    `SELECT t.name FROM unnest($2::text[]) WITH ORDINALITY AS t(name, position)
      WHERE EXISTS (SELECT 1 FROM events e WHERE e.project_id = $1 AND e.name = t.name)
      ORDER BY t.position`,
    [projectId, types],
  );
  return rows.map((row) => row.name);
}

/** Email counts of the last `days` days. */
export interface EmailTotals {
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  received: number;
}

/**
 * Of the emails created in the last `days` days, how many reached each milestone (its
 * timestamp is set once, by the first such event), and how many emails were received.
 */
export async function emailTotals(db: DataSource, projectId: string, days: number): Promise<EmailTotals> {
  const [row] = await db.query(
    `SELECT count(sent_at)::int AS sent, count(delivered_at)::int AS delivered, count(opened_at)::int AS opened,
            count(clicked_at)::int AS clicked, count(bounced_at)::int AS bounced, count(complained_at)::int AS complained,
            (SELECT count(*)::int FROM events e
              WHERE e.project_id = $1 AND e.name = 'email.received' AND e.created_at >= now() - make_interval(days => $2)) AS received
       FROM emails
      WHERE project_id = $1 AND created_at >= now() - make_interval(days => $2)`,
    [projectId, days],
  );
  return row;
}

/** A campaign waiting for its send time. */
export interface UpcomingCampaignRow {
  id: string;
  name: string;
  status: string;
  scheduled_for: Date | null;
}

/** The project's SCHEDULED campaigns, soonest first, at most `limit`. */
export async function scheduledCampaigns(db: DataSource, projectId: string, limit: number): Promise<UpcomingCampaignRow[]> {
  return db.query(
    `SELECT id, name, status, scheduled_for FROM campaigns
      WHERE project_id = $1 AND status = 'SCHEDULED'
      ORDER BY scheduled_for, id
      LIMIT $2`,
    [projectId, limit],
  );
}
