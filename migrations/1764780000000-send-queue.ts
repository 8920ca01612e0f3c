import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send queue: a `/v1/send`, batch or relay email is committed QUEUED with `due_at` (when it
 * may next be attempted) and `send_queue` (the Temporal task queue whose send lanes deliver it).
 * A lane's pass claims due emails by setting `send_lane` and its own `send_claim`, sends only
 * what it still holds, and frees them again on a transient failure with a later `due_at`. Emails that other workflows deliver (campaign, automation, test,
 * scheduled) have no `due_at`.
 */
export class SendQueue1764780000000 implements MigrationInterface {
  name = 'SendQueue1764780000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE emails ADD COLUMN due_at timestamptz, ADD COLUMN send_queue text, ADD COLUMN send_lane smallint, ADD COLUMN send_claim uuid`);
    // send_lane and send_claim are in no index, so that claiming and freeing an email can update its row in place.
    await db.query(`CREATE INDEX emails_send_queue_idx ON emails (send_queue, due_at) WHERE status = 'QUEUED' AND due_at IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX IF EXISTS emails_send_queue_idx');
    await db.query('ALTER TABLE emails DROP COLUMN send_claim, DROP COLUMN send_lane, DROP COLUMN send_queue, DROP COLUMN due_at');
  }
}
