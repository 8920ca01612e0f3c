import type { EntityManager } from 'typeorm';
import { audienceWhere } from '../conditions/compile';
import type { Condition } from '../conditions/condition';
import type { Campaign } from '../entities/campaign';
import type { ComposableContact, ComposableEmail } from '../sending/compose';
import { suppressedSql } from '../sending/send-queries';
import { hasEndpointSql } from '../webhooks/sources-queries';

/**
 * The audience query module: who a campaign goes to, counted and paged by keyset on
 * contact id (index contacts_project_id_idx), and the email records queued for a page.
 * Eligibility: MARKETING reaches subscribed contacts only; no campaign reaches a
 * suppressed address or domain; contacts created after sending started are left out.
 */

/** The campaign fields that decide its audience. */
export type AudienceSource = Pick<Campaign, 'projectId' | 'type' | 'audienceType' | 'segmentId' | 'audienceCondition'>;

/** The audience cannot be resolved any more (its segment was deleted); sending cannot go on. */
export class AudienceUnavailableError extends Error {}

interface AudienceQuery {
  /** FROM clause; the contact is always `c`. */
  from: string;
  where: string;
  params: unknown[];
}

interface SegmentRow {
  type: 'DYNAMIC' | 'STATIC';
  condition: Condition | null;
}

/** The project's segment with this id, or undefined. */
export async function findSegment(manager: EntityManager, projectId: string, segmentId: string): Promise<SegmentRow | undefined> {
  const rows: SegmentRow[] = await manager.query('SELECT type, condition FROM segments WHERE id = $1 AND project_id = $2', [segmentId, projectId]);
  return rows[0];
}

/** Who the audience type selects, before eligibility; `$1` is always the project id. */
async function selection(manager: EntityManager, source: AudienceSource): Promise<AudienceQuery> {
  if (source.audienceType === 'ALL') return { from: 'contacts c', where: 'c.project_id = $1', params: [source.projectId] };
  if (source.audienceType === 'FILTERED') {
    if (!source.audienceCondition) throw new AudienceUnavailableError('The campaign has no audienceCondition');
    return { from: 'contacts c', ...(await audienceWhere(manager, source.projectId, source.audienceCondition)) };
  }
  const segment = source.segmentId ? await findSegment(manager, source.projectId, source.segmentId) : undefined;
  if (!segment) throw new AudienceUnavailableError("The campaign's segment no longer exists");
  if (segment.type === 'STATIC') {
    return {
      from: 'contacts c JOIN segment_members m ON m.contact_id = c.id AND m.segment_id = $2',
      where: 'c.project_id = $1',
      params: [source.projectId, source.segmentId],
    };
  }
  if (!segment.condition) throw new AudienceUnavailableError("The campaign's segment has no condition");
  return { from: 'contacts c', ...(await audienceWhere(manager, source.projectId, segment.condition)) };
}

/** The eligible audience as of `asOf` (contacts created later are not part of it). */
async function audience(manager: EntityManager, source: AudienceSource, asOf: Date): Promise<AudienceQuery> {
  const query = await selection(manager, source);
  query.params.push(asOf);
  const clauses = [
    query.where,
    `c.created_at <= $${query.params.length}`,
    `NOT ${suppressedSql('c.project_id', 'c.email')}`,
  ];
  if (source.type === 'MARKETING') clauses.push('c.subscribed');
  return { ...query, where: clauses.join(' AND ') };
}

/** How many contacts the campaign would reach as of `asOf`. */
export async function countAudience(manager: EntityManager, source: AudienceSource, asOf: Date): Promise<number> {
  const { from, where, params } = await audience(manager, source, asOf);
  const [row] = await manager.query(`SELECT count(*)::int AS n FROM ${from} WHERE ${where}`, params);
  return row.n;
}

/** The next page of the audience after `afterContactId`, in contact id order. */
export async function audiencePage(
  manager: EntityManager,
  source: AudienceSource,
  asOf: Date,
  afterContactId: string | null,
  limit: number,
): Promise<string[]> {
  const { from, where, params } = await audience(manager, source, asOf);
  let keyset = '';
  if (afterContactId !== null) {
    params.push(afterContactId);
    keyset = ` AND c.id > $${params.length}`;
  }
  params.push(limit);
  const rows: { id: string }[] = await manager.query(
    `SELECT c.id FROM ${from} WHERE ${where}${keyset} ORDER BY c.id LIMIT $${params.length}`,
    params,
  );
  return rows.map((row) => row.id);
}

/**
 * Queues the campaign's email for each contact (source CAMPAIGN, status QUEUED); a contact
 * that already has this campaign's email keeps it (emails_campaign_contact_key), so a
 * retried batch adds nobody twice.
 */
export async function queueEmails(manager: EntityManager, campaign: Campaign, contactIds: string[]): Promise<void> {
  if (contactIds.length === 0) return;
  await manager.query(
    `INSERT INTO emails (project_id, contact_id, campaign_id, source, type, to_email, "from", from_name, reply_to, subject, body, status)
     SELECT c.project_id, c.id, $2, 'CAMPAIGN', $3, c.email, $4, $5, $6, $7, $8, 'QUEUED'
       FROM contacts c WHERE c.id = ANY($1::uuid[])
     ON CONFLICT (campaign_id, contact_id) WHERE campaign_id IS NOT NULL DO NOTHING`,
    [contactIds, campaign.id, campaign.type, campaign.from, campaign.fromName, campaign.replyTo, campaign.subject, campaign.body],
  );
}

/** The contacts among `contactIds` that have no email of the campaign yet, in contact id order. */
export async function contactsWithoutEmail(manager: EntityManager, campaignId: string, contactIds: string[]): Promise<string[]> {
  if (contactIds.length === 0) return [];
  const rows: { id: string }[] = await manager.query(
    `SELECT c.id FROM unnest($2::uuid[]) AS c(id)
      WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.campaign_id = $1 AND e.contact_id = c.id)
      ORDER BY c.id`,
    [campaignId, contactIds],
  );
  return rows.map((row) => row.id);
}

/** A campaign email still QUEUED, with what delivering it needs (src/sending/delivery.ts deliverQueued). */
export interface QueuedEmail extends ComposableEmail {
  contactId: string | null;
  campaignId: string;
  /** The contact, unless it was deleted. */
  contact: ComposableContact | null;
  /** Its address or domain is on the project's suppression list now. */
  suppressed: boolean;
  /** The project had an enabled webhook endpoint when the batch was loaded: its `email.*` webhook events are emitted. */
  hooked: boolean;
}

interface QueuedEmailRow {
  id: string;
  project_id: string;
  campaign_id: string;
  contact_id: string | null;
  contact_data: Record<string, unknown> | null;
  to_email: string;
  to_name: string | null;
  from: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  /** Null when it is the campaign's body, which is then not sent once per row. */
  body: string | null;
  headers: Record<string, string>;
  variables: Record<string, unknown>;
  type: QueuedEmail['type'];
  suppressed: boolean;
  hooked: boolean;
}

/**
 * The campaign's emails still QUEUED for contacts in (`afterContactId`, `lastContactId`] (no
 * upper bound when `lastContactId` is null), in contact id order: those of a page just queued,
 * or left over by an attempt that stopped part way. One query loads each with its contact's
 * data and whether it is suppressed. The emails share one copy of the campaign's body (each row
 * holds its own, read back only where it differs), so a page holds the body once, not per email.
 */
export async function queuedEmails(
  manager: EntityManager,
  campaign: Pick<Campaign, 'id' | 'body'>,
  afterContactId: string | null,
  lastContactId: string | null,
): Promise<QueuedEmail[]> {
  const rows: QueuedEmailRow[] = await manager.query(
    `SELECT e.id, e.project_id, e.campaign_id, e.contact_id, c.data AS contact_data, e.to_email, e.to_name, e."from", e.from_name, e.reply_to,
            e.subject, NULLIF(e.body, $4) AS body, e.headers, e.variables, e.type, ${suppressedSql('e.project_id', 'lower(e.to_email)')} AS suppressed,
            ${hasEndpointSql('(SELECT project_id FROM campaigns WHERE id = $1)')} AS hooked
       FROM emails e LEFT JOIN contacts c ON c.id = e.contact_id
      WHERE e.campaign_id = $1 AND e.status = 'QUEUED' AND ($2::uuid IS NULL OR e.contact_id <= $2::uuid) AND ($3::uuid IS NULL OR e.contact_id > $3::uuid)
      ORDER BY e.contact_id`,
    [campaign.id, lastContactId, afterContactId, campaign.body],
  );
  return rows.map((row) => ({
    id: row.id,
    projectId: row.project_id,
    campaignId: row.campaign_id,
    contactId: row.contact_id,
    contact: row.contact_id && row.contact_data ? { id: row.contact_id, data: row.contact_data } : null,
    toEmail: row.to_email,
    toName: row.to_name,
    from: row.from,
    fromName: row.from_name,
    replyTo: row.reply_to,
    subject: row.subject,
    body: row.body ?? campaign.body,
    headers: row.headers,
    variables: row.variables,
    type: row.type,
    suppressed: row.suppressed,
    hooked: row.hooked,
  }));
}
