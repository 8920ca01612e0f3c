import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The project an outbox message was sent for (null: Herald's own account mail), so that
 * `GET /outbox` shows a signed-in user only their projects' mail and mail to their address.
 */
export class OutboxProject1764610000000 implements MigrationInterface {
  name = 'OutboxProject1764610000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE outbox_messages ADD COLUMN project_id uuid;
      CREATE INDEX outbox_messages_project_created_idx ON outbox_messages (project_id, created_at DESC);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE outbox_messages DROP COLUMN project_id');
  }
}
