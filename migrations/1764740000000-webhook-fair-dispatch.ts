import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook dispatch claims deliveries round-robin across projects: unstarted deliveries indexed by
 * project, oldest first, in place of the one global oldest-first index.
 */
export class WebhookFairDispatch1764740000000 implements MigrationInterface {
  name = 'WebhookFairDispatch1764740000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX webhook_deliveries_project_unstarted_idx ON webhook_deliveries (project_id, created_at, id) WHERE NOT started');
    await db.query('DROP INDEX webhook_deliveries_unstarted_idx');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (created_at, id) WHERE NOT started');
    await db.query('DROP INDEX webhook_deliveries_project_unstarted_idx');
  }
}
