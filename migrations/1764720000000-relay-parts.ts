import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What SMTP relay messages carry beyond `/v1/send` bodies: a plain-text part sent as written
 * (`email_contents.text`; null: made from the HTML) and inline images (`email_attachments.cid`,
 * the Content-ID the HTML shows them by; null: an attachment).
 */
export class RelayParts1764720000000 implements MigrationInterface {
  name = 'RelayParts1764720000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE email_contents ADD COLUMN text text');
    await db.query('ALTER TABLE email_attachments ADD COLUMN cid text');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE email_attachments DROP COLUMN cid');
    await db.query('ALTER TABLE email_contents DROP COLUMN text');
  }
}
