import type { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES = ['QUEUED', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED', 'SKIPPED'];

/** The statuses as an SQL list. */
const list = (statuses: string[]) => statuses.map((status) => `'${status}'`).join(', ');

/**
 * Scheduled sends: an email may be SCHEDULED (held by its delivery workflow's timer until
 * `scheduled_at`) and then CANCELLED instead of sent.
 */
export class ScheduledEmails1764710000000 implements MigrationInterface {
  name = 'ScheduledEmails1764710000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE emails
        ADD COLUMN scheduled_at timestamptz,
        DROP CONSTRAINT emails_status_check,
        ADD CONSTRAINT emails_status_check CHECK (status IN (${list([...STATUSES, 'SCHEDULED', 'CANCELLED'])}))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE emails SET status = 'SKIPPED' WHERE status IN ('SCHEDULED', 'CANCELLED')`);
    await db.query(`
      ALTER TABLE emails
        DROP COLUMN scheduled_at,
        DROP CONSTRAINT emails_status_check,
        ADD CONSTRAINT emails_status_check CHECK (status IN (${list(STATUSES)}))`);
  }
}
