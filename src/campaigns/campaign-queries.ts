import type { EntityManager } from 'typeorm';
import type { EmailMilestone } from '../mail-events/ses-event';

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
 * still QUEUED so that nobody not yet attempted gets it. False when it was not active.
 */
export async function stopCampaign(manager: EntityManager, campaignId: string, reason: string): Promise<boolean> {
  const [, stopped]: [unknown, number] = await manager.query(
    `UPDATE campaigns SET status = 'CANCELLED', stopped_reason = $2, updated_at = now()
      WHERE id = $1 AND status IN ('SCHEDULED', 'SENDING')`,
    [campaignId, reason],
  );
  await manager.query(
    `UPDATE emails SET status = 'SKIPPED', error = $2, updated_at = now() WHERE campaign_id = $1 AND status = 'QUEUED'`,
    [campaignId, `Campaign stopped: ${reason}`],
  );
  return stopped === 1;
}

/** Marks a SENDING campaign SENT, now; a cancelled one stays CANCELLED. */
export async function finishCampaign(manager: EntityManager, campaignId: string): Promise<void> {
  await manager.query(`UPDATE campaigns SET status = 'SENT', sent_at = now(), updated_at = now() WHERE id = $1 AND status = 'SENDING'`, [campaignId]);
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

/** Counts one campaign email handed to the transport, in the transaction that marks it SENT. */
export async function countSent(manager: EntityManager, campaignId: string): Promise<void> {
  await manager.query('UPDATE campaigns SET sent_count = sent_count + 1 WHERE id = $1', [campaignId]);
}

/** How many times delivery of an email was attempted. */
export async function deliveryAttempts(manager: EntityManager, emailId: string): Promise<number> {
  const [row] = await manager.query('SELECT attempts FROM emails WHERE id = $1', [emailId]);
  return row?.attempts ?? 0;
}
