import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The activity feed (src/analytics/activity-queries.ts) reads only the `email.*` events Herald
 * records (tracking refuses those names, so they are all SYSTEM events), newest first; in a
 * project whose tracked events outnumber them, walking the whole-project index would step
 * over every tracked event. This partial index holds just the feed's rows, in the feed's
 * order, and also answers the last-24-hours count. Its predicate is repeated word for word
 * by the queries, which is what lets the planner use it.
 */
export class ActivityIndex1764050000000 implements MigrationInterface {
  name = 'ActivityIndex1764050000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE INDEX events_activity_idx ON events (project_id, created_at DESC, id DESC)
        WHERE name LIKE 'email.%'
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX events_activity_idx');
  }
}
