import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The contact count of a project, with or without the subscribed filter, answered from an
 * index (index-only where the visibility map allows) instead of the table; the plans are
 * in the output of `npm run bench:indexes`.
 */
export class ContactSubscribedIndex1763950000000 implements MigrationInterface {
  name = 'ContactSubscribedIndex1763950000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX contacts_project_subscribed_idx ON contacts (project_id, subscribed)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX contacts_project_subscribed_idx');
  }
}
