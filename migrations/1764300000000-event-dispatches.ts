import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durable event dispatch: every transaction that stores events or writes contacts also
 * stores what its subscribers (workflow triggers and waits, tracked segments) must be told,
 * one row per project. The process that committed dispatches it at once and deletes the
 * row; a row left behind (crash, failing subscriber) is dispatched again by the worker's
 * `event-redelivery` workflow once `retry_at` passes.
 * Executions remember the event that triggered them, so a dispatch delivered twice starts
 * one execution.
 */
export class EventDispatches1764300000000 implements MigrationInterface {
  name = 'EventDispatches1764300000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE event_dispatches (
        id bigserial PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        event_ids uuid[] NOT NULL DEFAULT '{}',
        contact_ids uuid[] NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        retry_at timestamptz NOT NULL
      );
      CREATE INDEX event_dispatches_retry_idx ON event_dispatches (retry_at, id);

      ALTER TABLE workflow_executions ADD COLUMN trigger_event_id uuid;
      CREATE UNIQUE INDEX workflow_executions_trigger_event_key ON workflow_executions (workflow_id, trigger_event_id)
        WHERE trigger_event_id IS NOT NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX workflow_executions_trigger_event_key;
      ALTER TABLE workflow_executions DROP COLUMN trigger_event_id;
      DROP TABLE event_dispatches;
    `);
  }
}
