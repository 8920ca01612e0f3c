import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tracked event that changes a contact's `data` rewrites the contact's row. With a GIN index
 * on `data`, every such rewrite added an entry to each of the table's indexes (the email's
 * trigrams among them): the column was indexed, so no rewrite could be heap-only. Without it,
 * a rewrite that leaves the email, project and subscription as they are is a heap-only update
 * whenever its page has room: the new version goes on the same page and no index is touched.
 * The index served only the `?` (key exists) operator, which Herald uses for rare, per-project
 * work (an `exists` filter on a top-level key, a field's coverage or removal): those now read
 * the project's contacts, as its other filters on `data` always did.
 */
export class ContactsHotUpdates1764760000000 implements MigrationInterface {
  name = 'ContactsHotUpdates1764760000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX IF EXISTS contacts_data_idx');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX contacts_data_idx ON contacts USING gin (data)');
  }
}
