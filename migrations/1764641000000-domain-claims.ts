import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Domain claims lapse: `pending_since` is when a domain last became PENDING (added, or fallen
 * back from VERIFIED); a claim PENDING for 7 days is removed, with its SES identity, so that
 * another project may claim the domain. Existing domains count from this migration.
 */
export class DomainClaims1764641000000 implements MigrationInterface {
  name = 'DomainClaims1764641000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE domains ADD COLUMN pending_since timestamptz NOT NULL DEFAULT now()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE domains DROP COLUMN pending_since');
  }
}
