import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content sent exactly as written (`email_contents.literal`): SMTP relay messages, whose
 * subject and HTML are never read as Liquid; false for everything `/v1/send` stores.
 */
export class LiteralContents1764730000000 implements MigrationInterface {
  name = 'LiteralContents1764730000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE email_contents ADD COLUMN literal boolean NOT NULL DEFAULT false');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE email_contents DROP COLUMN literal');
  }
}
