import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An execution records the event names its graph's WAIT_FOR_EVENT steps wait for, as it started:
 * only those events of its contact are signalled to it. Executions started before have none
 * recorded (NULL) and get every event of their contact, as they did.
 */
export class ExecutionAwaitedEvents1764750000000 implements MigrationInterface {
  name = 'ExecutionAwaitedEvents1764750000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_executions ADD COLUMN awaited_events text[]');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE workflow_executions DROP COLUMN awaited_events');
  }
}
