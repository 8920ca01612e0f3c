import type { EntityManager } from 'typeorm';
import type { Graph } from '../../workflows/shared';
import type { EmailType } from '../entities/template';
import { WorkflowExecution, type ExecutionStatus } from '../entities/workflow';

/**
 * The SQL of the engine's execution records: starting, cancelling and signalling executions,
 * and the writes their Temporal workflows make as they move (src/automations/execution-records.ts).
 * Indexes: `workflow_executions_active_key` (one active execution per workflow and contact) and
 * `workflow_executions_trigger_event_key` (one execution per workflow and trigger event).
 */

/** An active record younger than this is taken to be running: its workflow has just been started. */
const ORPHAN_MIN_AGE = "interval '1 minute'";

/** The project's workflow as a start needs it, share-locked for the transaction so it is not deleted meanwhile; undefined when absent. */
export async function lockWorkflowForStart(manager: EntityManager, projectId: string, workflowId: string): Promise<{ allow_reentry: boolean; name: string } | undefined> {
  const [workflow]: { allow_reentry: boolean; name: string }[] = await manager.query(
    'SELECT allow_reentry, name FROM workflows WHERE id = $1 AND project_id = $2 FOR SHARE',
    [workflowId, projectId],
  );
  return workflow;
}

/** The email address of the project's contact; undefined when there is no such contact. */
export async function contactEmail(manager: EntityManager, projectId: string, contactId: string): Promise<string | undefined> {
  const [contact]: { email: string }[] = await manager.query('SELECT email FROM contacts WHERE id = $1 AND project_id = $2', [contactId, projectId]);
  return contact?.email;
}

/** Serialises the starts of one workflow for one contact until the transaction ends. */
export async function lockWorkflowContact(manager: EntityManager, workflowId: string, contactId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`wf-exec:${workflowId}:${contactId}`]);
}

/** Whether the contact ever had an execution of the workflow, in any status. */
export async function hasAnyExecution(manager: EntityManager, workflowId: string, contactId: string): Promise<boolean> {
  const earlier: unknown[] = await manager.query('SELECT 1 FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2 LIMIT 1', [workflowId, contactId]);
  return earlier.length > 0;
}

/** Inserts a RUNNING execution; undefined when a unique index (active execution, trigger event) already holds one. */
export async function insertRunningExecution(
  manager: EntityManager,
  values: { projectId: string; workflowId: string; contactId: string; context: Record<string, unknown>; triggerEventId: string | null },
): Promise<{ id: string } | undefined> {
  const rows: { id: string }[] = await manager.query(
    `INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status, context, trigger_event_id)
     VALUES ($1, $2, $3, 'RUNNING', $4, $5) ON CONFLICT DO NOTHING RETURNING id`,
    [values.projectId, values.workflowId, values.contactId, JSON.stringify(values.context), values.triggerEventId],
  );
  return rows[0];
}

/** A workflow's steps and transitions, read in one statement so that both come from the same moment. */
export async function graphSnapshot(manager: EntityManager, workflowId: string): Promise<Graph> {
  const [row]: Graph[] = await manager.query(
    `SELECT
       (SELECT coalesce(json_agg(json_build_object('id', s.id, 'type', s.type, 'name', s.name, 'config', s.config) ORDER BY s.created_at, s.id), '[]')
          FROM workflow_steps s WHERE s.workflow_id = $1) AS steps,
       (SELECT coalesce(json_agg(json_build_object('fromStepId', t.from_step_id, 'toStepId', t.to_step_id, 'branch', t.branch) ORDER BY t.created_at, t.id), '[]')
          FROM workflow_transitions t WHERE t.workflow_id = $1) AS transitions`,
    [workflowId],
  );
  return row;
}

/** The id of the contact's RUNNING or WAITING execution of the workflow started over a minute ago; undefined when there is none. */
export async function olderActiveExecutionId(manager: EntityManager, workflowId: string, contactId: string): Promise<string | undefined> {
  const [active]: { id: string }[] = await manager.query(
    `SELECT id FROM workflow_executions
      WHERE workflow_id = $1 AND contact_id = $2 AND status IN ('RUNNING', 'WAITING') AND started_at < now() - ${ORPHAN_MIN_AGE}`,
    [workflowId, contactId],
  );
  return active?.id;
}

/** Ends an execution still under way with a final status and its reason. */
export async function endExecution(manager: EntityManager, executionId: string, status: ExecutionStatus, error: string | null): Promise<void> {
  await manager.query(
    `UPDATE workflow_executions SET status = $2, error = $3, completed_at = now() WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`,
    [executionId, status, error],
  );
}

/** Marks an execution still under way CANCELLED. */
export async function cancelActiveExecution(manager: EntityManager, executionId: string): Promise<void> {
  await manager.query(`UPDATE workflow_executions SET status = 'CANCELLED', completed_at = now() WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`, [
    executionId,
  ]);
}

/** An execution by id; throws when there is none. */
export function executionById(manager: EntityManager, executionId: string): Promise<WorkflowExecution> {
  return manager.findOneByOrFail(WorkflowExecution, { id: executionId });
}

/** The ids of the contact's RUNNING and WAITING executions in the project. */
export async function activeExecutionIdsOfContact(manager: EntityManager, projectId: string, contactId: string): Promise<string[]> {
  const rows: { id: string }[] = await manager.query(
    `SELECT id FROM workflow_executions WHERE project_id = $1 AND contact_id = $2 AND status IN ('RUNNING', 'WAITING')`,
    [projectId, contactId],
  );
  return rows.map((row) => row.id);
}

/** Whether an execution is still RUNNING or WAITING (false when it ended or does not exist). */
export async function isExecutionActive(manager: EntityManager, executionId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM workflow_executions WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`, [executionId]);
  return rows.length > 0;
}

/** Whether an execution exists, in any status. */
export async function executionExists(manager: EntityManager, executionId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query('SELECT 1 FROM workflow_executions WHERE id = $1', [executionId]);
  return rows.length > 0;
}

/** Moves an execution still under way to a step and status; false when it ended or does not exist. */
export async function moveToStep(manager: EntityManager, executionId: string, stepId: string, status: ExecutionStatus): Promise<boolean> {
  // TypeORM answers an UPDATE ... RETURNING on Postgres with [rows, affected row count].
  const [rows]: [unknown[]] = await manager.query(
    `UPDATE workflow_executions SET current_step_id = $2, status = $3
      WHERE id = $1 AND status IN ('RUNNING', 'WAITING') RETURNING id`,
    [executionId, stepId, status],
  );
  return rows.length > 0;
}

/** Appends a skipped step to the execution's `context.skipped`, unless that step is there already. */
export async function appendSkip(manager: EntityManager, executionId: string, skip: { stepId: string; reason: string; at: string }): Promise<void> {
  await manager.query(
    `UPDATE workflow_executions
        SET context = jsonb_set(context, '{skipped}', coalesce(context->'skipped', '[]'::jsonb) || $2::jsonb)
      WHERE id = $1 AND NOT coalesce(context->'skipped', '[]'::jsonb) @> $3::jsonb`,
    [executionId, JSON.stringify([skip]), JSON.stringify([{ stepId: skip.stepId }])],
  );
}

/** The step an execution is at; null when it has none or does not exist. */
export async function currentStepId(manager: EntityManager, executionId: string): Promise<string | null> {
  const [row]: { current_step_id: string | null }[] = await manager.query('SELECT current_step_id FROM workflow_executions WHERE id = $1', [executionId]);
  return row?.current_step_id ?? null;
}

/** The message of a SEND_EMAIL step's email record. */
export interface StepEmailValues {
  id: string;
  projectId: string;
  contactId: string;
  templateId: string | null;
  type: EmailType;
  toEmail: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  subject: string;
  body: string;
  variables: Record<string, unknown>;
}

/** Inserts a SEND_EMAIL step's QUEUED email record (source WORKFLOW); false when a record with its id exists already. */
export async function insertStepEmail(manager: EntityManager, email: StepEmailValues): Promise<boolean> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO emails (id, project_id, contact_id, template_id, source, type, to_email, "from", from_name, reply_to, subject, body, variables, status)
     VALUES ($1, $2, $3, $4, 'WORKFLOW', $5, $6, $7, $8, $9, $10, $11, $12, 'QUEUED')
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      email.id, email.projectId, email.contactId, email.templateId, email.type, email.toEmail, email.from, email.fromName,
      email.replyTo, email.subject, email.body, JSON.stringify(email.variables),
    ],
  );
  return inserted.length > 0;
}

/** The name of the project's workflow; undefined when it no longer exists. */
export async function workflowName(manager: EntityManager, projectId: string, workflowId: string): Promise<string | undefined> {
  const [workflow]: { name: string }[] = await manager.query('SELECT name FROM workflows WHERE id = $1 AND project_id = $2', [workflowId, projectId]);
  return workflow?.name;
}
