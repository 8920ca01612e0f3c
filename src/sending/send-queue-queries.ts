import type { EntityManager } from 'typeorm';
import { DELIVERABLE_COLUMNS, type DeliverableEmail } from './send-queries';

/** A send-queue email claimed by a lane, with its attempts counted, this one included. */
export type ClaimedEmail = DeliverableEmail & { attempts: number };

/**
 * Claims for lane `lane` of task queue `queue` up to `limit` queued emails that are due, oldest
 * first, counting an attempt of each, and answers them with what delivering them checks, in one
 * statement. Rows another lane is claiming are skipped, never waited for; a claimed email stays
 * the lane's until it is sent, given up or freed again.
 */
export async function claimDueEmails(manager: EntityManager, queue: string, lane: number, limit: number): Promise<ClaimedEmail[]> {
  return manager.query(
    `WITH claimed AS (
       UPDATE emails SET send_lane = $1, attempts = attempts + 1
        WHERE id IN (SELECT id FROM emails
                      WHERE send_queue = $3 AND status = 'QUEUED' AND due_at IS NOT NULL AND send_lane IS NULL AND due_at <= now()
                      ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING *)
     SELECT ${DELIVERABLE_COLUMNS}, e.attempts
       FROM claimed e LEFT JOIN contacts c ON c.id = e.contact_id
      ORDER BY e.due_at`,
    [lane, limit, queue],
  );
}

/**
 * Frees the queued emails lane `lane` of `queue` holds, due at once: all of them (claimed by a pass that ended or
 * was cut off), or those among `ids` (claimed by this pass and not started).
 */
export async function freeLane(manager: EntityManager, queue: string, lane: number, ids?: string[]): Promise<void> {
  if (ids?.length === 0) return;
  await manager.query(`UPDATE emails SET send_lane = NULL WHERE send_queue = $3 AND status = 'QUEUED' AND send_lane = $1 AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))`,
    [lane, ids ?? null, queue],
  );
}

/** Frees a queued email after a transient failure, due again `delaySeconds` from now. */
export async function retryLater(manager: EntityManager, id: string, delaySeconds: number): Promise<void> {
  await manager.query(
    `UPDATE emails SET send_lane = NULL, due_at = now() + make_interval(secs => $2) WHERE id = $1 AND status = 'QUEUED'`,
    [id, delaySeconds],
  );
}
