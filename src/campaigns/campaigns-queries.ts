import type { EntityManager } from 'typeorm';
import { containsPattern } from '../db/like';
import { Campaign, type CampaignStatus } from '../entities/campaign';
import { notFound } from '../http/errors';
import type { OffsetParams } from '../http/pagination';
import type { EmailMilestone } from '../mail-events/ses-event';
import type { CampaignFacts } from '../webhooks/source-events';

/** The orders `GET /campaigns` offers. */
export const CAMPAIGN_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type CampaignSort = (typeof CAMPAIGN_SORTS)[number];

/** Filters and order of a campaign list. */
export interface CampaignFilter {
  status?: CampaignStatus;
  search?: string;
  sort: CampaignSort;
  dir: 'asc' | 'desc';
}

const ORDER_BY: Record<CampaignSort, string> = {
  name: 'LOWER(c.name)',
  createdAt: 'c.createdAt',
  updatedAt: 'c.updatedAt',
};

/** A page of the project's campaigns, filtered (search over name, subject and sender) and sorted, with the total. */
export async function campaignsPage(
  manager: EntityManager,
  projectId: string,
  filter: CampaignFilter,
  page: OffsetParams,
): Promise<{ rows: Campaign[]; total: number }> {
  const builder = manager.createQueryBuilder(Campaign, 'c').where('c.projectId = :projectId', { projectId });
  if (filter.status) builder.andWhere('c.status = :status', { status: filter.status });
  if (filter.search) {
    builder.andWhere('(c.name ILIKE :pattern OR c.subject ILIKE :pattern OR c.from ILIKE :pattern)', { pattern: containsPattern(filter.search) });
  }
  const dir = filter.dir === 'asc' ? 'ASC' : 'DESC';
  const [rows, total] = await builder
    .orderBy(ORDER_BY[filter.sort], dir)
    .addOrderBy('c.id', dir)
    .offset(page.offset)
    .limit(page.pageSize)
    .getManyAndCount();
  return { rows, total };
}

/** One campaign of the project, optionally locked for update; 404 otherwise. */
export async function findCampaign(manager: EntityManager, projectId: string, id: string, lock = false): Promise<Campaign> {
  const campaign = await manager.findOne(Campaign, {
    where: { projectId, id },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!campaign) throw notFound('Campaign');
  return campaign;
}

/** A campaign by id, locked for update (`pessimistic_write`) or against changes (`pessimistic_read`); null when gone. */
export function lockCampaign(manager: EntityManager, id: string, mode: 'pessimistic_write' | 'pessimistic_read'): Promise<Campaign | null> {
  return manager.findOne(Campaign, { where: { id }, lock: { mode } });
}

/** The database's clock, which decides who belongs to an audience. */
export async function databaseNow(manager: EntityManager): Promise<Date> {
  const [{ now }]: { now: Date }[] = await manager.query('SELECT now() AS now');
  return now;
}

/** Marks a campaign SENDING with its audience size. */
export async function startSending(manager: EntityManager, id: string, totalRecipients: number): Promise<void> {
  await manager.update(Campaign, { id }, { status: 'SENDING', totalRecipients });
}

/** Inserts a new campaign. */
export function insertCampaign(manager: EntityManager, fields: Omit<Campaign, 'id' | 'createdAt' | 'updatedAt'>): Promise<Campaign> {
  return manager.save(manager.create(Campaign, fields));
}

/** Stores the changes to a loaded campaign. */
export function saveCampaign(manager: EntityManager, campaign: Campaign): Promise<Campaign> {
  return manager.save(campaign);
}

/** Deletes a campaign; its emails stay. */
export async function deleteCampaign(manager: EntityManager, id: string): Promise<void> {
  await manager.delete(Campaign, { id });
}

/** The campaign counter each mail event milestone moves (emails with at least one such event). */
const COUNTER_OF: Record<EmailMilestone, string> = {
  deliveredAt: 'delivered_count',
  openedAt: 'opened_count',
  clickedAt: 'clicked_count',
  bouncedAt: 'bounced_count',
  complainedAt: 'complained_count',
};

/**
 * Ends a SCHEDULED or SENDING campaign as CANCELLED with the reason, and skips its emails
 * still QUEUED so that nobody not yet attempted gets it. False when it was not active. Locks the
 * campaign, then its emails in id order, as every statement writing many emails does: sending
 * writes them while a cancel runs, and another order could deadlock.
 */
export async function stopCampaign(manager: EntityManager, campaignId: string, reason: string): Promise<boolean> {
  const [, stopped]: [unknown, number] = await manager.query(
    `UPDATE campaigns SET status = 'CANCELLED', stopped_reason = $2, updated_at = now()
      WHERE id = $1 AND status IN ('SCHEDULED', 'SENDING')`,
    [campaignId, reason],
  );
  await manager.query(
    `UPDATE emails SET status = 'SKIPPED', error = $2, updated_at = now()
      WHERE id IN (SELECT id FROM emails WHERE campaign_id = $1 AND status = 'QUEUED' ORDER BY id FOR UPDATE)`,
    [campaignId, `Campaign stopped: ${reason}`],
  );
  return stopped === 1;
}

/** Marks a SENDING campaign SENT, now; a cancelled one stays CANCELLED. Answers the campaign it marked, with its project, or undefined. */
export async function finishCampaign(manager: EntityManager, campaignId: string): Promise<(CampaignFacts & { projectId: string }) | undefined> {
  const [rows]: [(CampaignFacts & { projectId: string })[], number] = await manager.query(
    `UPDATE campaigns SET status = 'SENT', sent_at = now(), updated_at = now() WHERE id = $1 AND status = 'SENDING'
     RETURNING id, project_id AS "projectId", name, subject, sent_at AS "sentAt", total_recipients AS "totalRecipients",
               sent_count AS "sentCount", delivered_count AS "deliveredCount", opened_count AS "openedCount",
               clicked_count AS "clickedCount", bounced_count AS "bouncedCount", complained_count AS "complainedCount"`,
    [campaignId],
  );
  return rows[0];
}

/** How many campaigns of the project are sending now (they share its send rate). */
export async function countSendingCampaigns(manager: EntityManager, projectId: string): Promise<number> {
  const [row] = await manager.query(`SELECT count(*)::int AS n FROM campaigns WHERE project_id = $1 AND status = 'SENDING'`, [projectId]);
  return row.n;
}

/** Counts a campaign email's first delivery, open, click, bounce or complaint, in the mail event's transaction. */
export async function countMailEvent(manager: EntityManager, campaignId: string, milestone: EmailMilestone): Promise<void> {
  const column = COUNTER_OF[milestone];
  await manager.query(`UPDATE campaigns SET ${column} = ${column} + 1 WHERE id = $1`, [campaignId]);
}

/** An email the transport accepted, with the transport's id for it. */
export interface SentEmail {
  emailId: string;
  campaignId: string | null;
  messageId: string;
}

/**
 * Marks the emails still QUEUED among `sent` SENT and counts them on their campaigns, in one
 * statement, so a counter moves exactly when a status does; answers the ids it marked. An email
 * a cancel SKIPPED while its send was in flight (claimed: attempts > 0) did go out, and is
 * marked SENT too. Locks as stopCampaign does: the campaigns' rows first, then the emails in id order.
 */
export async function markSent(manager: EntityManager, sent: SentEmail[]): Promise<string[]> {
  const campaignIds = [...new Set(sent.flatMap((email) => (email.campaignId ? [email.campaignId] : [])))].sort();
  if (campaignIds.length > 0) await manager.query('SELECT 1 FROM campaigns WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE', [campaignIds]);
  const rows: { id: string }[] = await manager.query(
    `WITH queued AS (
       SELECT id FROM emails
        WHERE id = ANY($1::uuid[]) AND (status = 'QUEUED' OR (status = 'SKIPPED' AND attempts > 0))
        ORDER BY id FOR UPDATE
     ), marked AS (
       UPDATE emails e SET status = 'SENT', error = NULL, message_id = s.message_id, sent_at = now(), updated_at = now()
         FROM unnest($1::uuid[], $2::text[]) AS s(id, message_id)
        WHERE e.id = s.id AND e.id IN (SELECT id FROM queued)
        RETURNING e.id, e.campaign_id
     ), counted AS (
       UPDATE campaigns c SET sent_count = c.sent_count + n.sent
         FROM (SELECT campaign_id, count(*)::int AS sent FROM marked WHERE campaign_id IS NOT NULL GROUP BY campaign_id) n
        WHERE c.id = n.campaign_id
     )
     SELECT id FROM marked`,
    [sent.map((email) => email.emailId), sent.map((email) => email.messageId)],
  );
  return rows.map((row) => row.id);
}

/** How many times delivery of an email was attempted. */
export async function deliveryAttempts(manager: EntityManager, emailId: string): Promise<number> {
  const [row] = await manager.query('SELECT attempts FROM emails WHERE id = $1', [emailId]);
  return row?.attempts ?? 0;
}
