import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflow automations: a workflow record with its graph (steps joined by transitions),
 * and one execution per contact run, each backed by the Temporal workflow `wf-exec/<id>`.
 * At most one RUNNING/WAITING execution per workflow and contact, enforced by the database.
 */
export class Workflows1764100000000 implements MigrationInterface {
  name = 'Workflows1764100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE workflows (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        trigger_type text NOT NULL DEFAULT 'EVENT' CHECK (trigger_type IN ('EVENT')),
        trigger_config jsonb NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT false,
        allow_reentry boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX workflows_project_idx ON workflows (project_id, created_at DESC);
      CREATE INDEX workflows_trigger_idx ON workflows (project_id, (trigger_config->>'eventName')) WHERE enabled;

      CREATE TABLE workflow_steps (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT')),
        name text NOT NULL,
        config jsonb NOT NULL DEFAULT '{}',
        position jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX workflow_steps_workflow_idx ON workflow_steps (workflow_id);

      CREATE TABLE workflow_transitions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        from_step_id uuid NOT NULL REFERENCES workflow_steps(id) ON DELETE CASCADE,
        to_step_id uuid NOT NULL REFERENCES workflow_steps(id) ON DELETE CASCADE,
        branch text CHECK (branch IN ('yes', 'no')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX workflow_transitions_workflow_idx ON workflow_transitions (workflow_id);
      CREATE UNIQUE INDEX workflow_transitions_branch_key ON workflow_transitions (from_step_id, coalesce(branch, ''));

      CREATE TABLE workflow_executions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
        status text NOT NULL CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'CANCELLED', 'FAILED')),
        current_step_id uuid,
        context jsonb NOT NULL DEFAULT '{}',
        error text,
        started_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      );
      CREATE INDEX workflow_executions_workflow_idx ON workflow_executions (workflow_id, started_at DESC, id DESC);
      CREATE INDEX workflow_executions_contact_idx ON workflow_executions (contact_id, workflow_id);
      CREATE UNIQUE INDEX workflow_executions_active_key ON workflow_executions (workflow_id, contact_id) WHERE status IN ('RUNNING', 'WAITING');
      CREATE INDEX workflow_executions_waiting_idx ON workflow_executions (project_id, status) WHERE status IN ('RUNNING', 'WAITING');
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE workflow_executions, workflow_transitions, workflow_steps, workflows');
  }
}
