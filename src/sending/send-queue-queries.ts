import type { EntityManager } from 'typeorm';
import { DELIVERABLE_COLUMNS, type DeliverableEmail } from './send-queries';

/** A send-queue email claimed by a lane's pass, with the attempts counted before this one. */
export type ClaimedEmail = DeliverableEmail & { attempts: number };

/** A lane of a task queue's send queue, and the token its current pass claims under. */
export interface LanePass {
  queue: string;
  lane: number;
  token: string;
}

/**
 * Claims for the pass up to `limit` queued emails of its task queue that are due, oldest first,
 * and answers them with what delivering them checks, in one statement. Rows another lane is
 * claiming are skipped, never waited for; a claimed email stays the pass's until it is sent,
 * given up, freed again, or taken back by a later pass of the lane.
 */
export async function claimDueEmails(manager: EntityManager, pass: LanePass, limit: number): Promise<ClaimedEmail[]> {
  return manager.query(
    `WITH claimed AS (
       UPDATE emails SET send_lane = $1, send_claim = $4
        WHERE id IN (SELECT id FROM emails
                      WHERE send_queue = $3 AND status = 'QUEUED' AND due_at IS NOT NULL AND send_lane IS NULL AND due_at <= now()
                      ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING *)
     SELECT ${DELIVERABLE_COLUMNS}, e.attempts
       FROM claimed e LEFT JOIN contacts c ON c.id = e.contact_id
      ORDER BY e.due_at`,
    [pass.lane, limit, pass.queue, pass.token],
  );
}

/** Takes back, due at once, every queued email the lane holds: claimed by earlier passes, which ended or were cut off. */
export async function takeBackLane(manager: EntityManager, pass: LanePass): Promise<void> {
  await manager.query(`UPDATE emails SET send_lane = NULL, send_claim = NULL WHERE send_queue = $1 AND status = 'QUEUED' AND send_lane = $2`, [
    pass.queue,
    pass.lane,
  ]);
}

/** Frees, due `delaySeconds` from now, the emails among `ids` the pass still holds (0: at once). */
export async function freeHeld(manager: EntityManager, pass: LanePass, ids: string[], delaySeconds = 0): Promise<void> {
  if (ids.length === 0) return;
  await manager.query(
    `UPDATE emails SET send_lane = NULL, send_claim = NULL, due_at = CASE WHEN $3::float8 > 0 THEN now() + make_interval(secs => $3) ELSE due_at END
      WHERE id = ANY($1::uuid[]) AND status = 'QUEUED' AND send_claim = $2`,
    [ids, pass.token, delaySeconds],
  );
}
