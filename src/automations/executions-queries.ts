import type { DataSource, EntityManager } from 'typeorm';
import { prepared, runPrepared } from '../db/prepared';
import type { Graph } from '../../workflows/shared';
import { WorkflowExecution, type ExecutionStatus } from '../entities/workflow';

/**
 * The SQL of the engine's execution records: starting, cancelling and signalling executions,
 * and the writes their Temporal workflows make as they move (src/automations/execution-records.ts).
 * Indexes: `workflow_executions_active_key` (one active execution per workflow and contact) and
 * `workflow_executions_trigger_event_key` (one execution per workflow and trigger event).
 */

/**
 * An active record younger than this is taken to be running: its workflow has just been started
 * (a triggered start commits its record first, then starts it).
 */
const ORPHAN_MIN_AGE = "interval '1 minute'";

/** What a start reads before it inserts: the workflow, the contact's address and the graph. */
export interface StartSnapshot {
  allowReentry: boolean;
  name: string;
  /** Null when the project has no such contact. */
  email: string | null;
  graph: Graph;
}

/** The steps and transitions of workflow $1, as a JSON array each. */
const GRAPH_COLUMNS = `
  (SELECT coalesce(json_agg(json_build_object('id', s.id, 'type', s.type, 'name', s.name, 'config', s.config) ORDER BY s.created_at, s.id), '[]')
     FROM workflow_steps s WHERE s.workflow_id = $1) AS steps,
  (SELECT coalesce(json_agg(json_build_object('fromStepId', t.from_step_id, 'toStepId', t.to_step_id, 'branch', t.branch) ORDER BY t.created_at, t.id), '[]')
     FROM workflow_transitions t WHERE t.workflow_id = $1) AS transitions`;

/**
 * In one statement: the project's workflow, share-locked for the transaction so that it is not
 * deleted meanwhile, the contact's address, the graph (steps and transitions from the same
 * moment), and the lock that serialises the starts of this workflow for this contact until the
 * transaction ends. Undefined when the project has no such workflow (and nothing is locked).
 */
export async function lockForStart(manager: EntityManager, projectId: string, workflowId: string, contactId: string): Promise<StartSnapshot | undefined> {
  const [row] = (await runPrepared(manager, LOCK_FOR_START, [workflowId, projectId, contactId, startLockKey(workflowId, contactId)])) as {
    allow_reentry: boolean;
    name: string;
    email: string | null;
    steps: Graph['steps'];
    transitions: Graph['transitions'];
  }[];
  return row && { allowReentry: row.allow_reentry, name: row.name, email: row.email, graph: { steps: row.steps, transitions: row.transitions } };
}

const LOCK_FOR_START = prepared(
  `SELECT w.allow_reentry, w.name,
          (SELECT c.email FROM contacts c WHERE c.id = $3 AND c.project_id = $2) AS email,
          pg_advisory_xact_lock(hashtextextended($4, 0)) IS NULL AS locked,
          ${GRAPH_COLUMNS}
     FROM workflows w WHERE w.id = $1 AND w.project_id = $2 FOR SHARE OF w`,
);

/** The key of the lock that serialises the starts of one workflow for one contact. */
const startLockKey = (workflowId: string, contactId: string) => `wf-exec:${workflowId}:${contactId}`;

/** A workflow_executions row as Postgres answers it. */
interface ExecutionRow {
  id: string;
  project_id: string;
  workflow_id: string;
  contact_id: string | null;
  status: ExecutionStatus;
  current_step_id: string | null;
  context: Record<string, unknown>;
  trigger_event_id: string | null;
  error: string | null;
  started_at: Date;
  completed_at: Date | null;
}

/** The columns of an ExecutionRow, as a select list. */
const EXECUTION_COLUMNS = 'id, project_id, workflow_id, contact_id, status, current_step_id, context, trigger_event_id, error, started_at, completed_at';

/**
 * The version of a row as Postgres wrote it (its `xmin`): every write of the row (a step the
 * workflow records, a later delivery's claim, a cancel) gives it a new one.
 */
export type RowVersion = string;

/** An execution's id with its row's version as it was read. */
export interface VersionedExecution {
  id: string;
  version: RowVersion;
}

/** The entity of a workflow_executions row, column by column as the entity maps them. */
function executionFromRow(manager: EntityManager, row: ExecutionRow): WorkflowExecution {
  const execution = new WorkflowExecution();
  for (const column of manager.connection.getMetadata(WorkflowExecution).columns) {
    Object.assign(execution, { [column.propertyName]: row[column.databaseName as keyof ExecutionRow] });
  }
  return execution;
}

/**
 * Inserts an execution, RUNNING or WAITING at its first step, and answers it, unless reentry is
 * refused and the contact had an execution of the workflow before (`reentryRefused`), or a
 * unique index (active execution, trigger event) already holds one (neither flag nor
 * execution). Run under the start lock (lockForStart), whose holders have all committed, so the
 * check sees every earlier execution.
 */
export async function insertStartedExecution(
  manager: EntityManager,
  values: {
    projectId: string;
    workflowId: string;
    contactId: string;
    context: Record<string, unknown>;
    triggerEventId: string | null;
    allowReentry: boolean;
    status: 'RUNNING' | 'WAITING';
    currentStepId: string | null;
    /** The event names its graph waits for (awaitedEvents): the events of its contact signalled to it. */
    awaitedEvents: string[];
  },
): Promise<{ execution?: WorkflowExecution; version?: RowVersion; reentryRefused: boolean }> {
  const [row] = (await runPrepared(manager, INSERT_STARTED, [
    values.projectId, values.workflowId, values.contactId, JSON.stringify(values.context), values.triggerEventId, values.allowReentry,
    values.status, values.currentStepId, values.awaitedEvents,
  ])) as (Partial<ExecutionRow> & { refused: boolean; version: RowVersion | null })[];
  return { ...(row.id ? { execution: executionFromRow(manager, row as ExecutionRow), version: row.version! } : {}), reentryRefused: row.refused };
}

const INSERT_STARTED = prepared(
  `WITH earlier AS (
     SELECT NOT $6::boolean AND EXISTS (SELECT 1 FROM workflow_executions WHERE workflow_id = $2 AND contact_id = $3) AS refused
   ), inserted AS (
     INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status, current_step_id, context, trigger_event_id, awaited_events)
     SELECT $1, $2, $3, $7, $8, $4, $5, $9 FROM earlier WHERE NOT earlier.refused
     ON CONFLICT DO NOTHING
     RETURNING ${EXECUTION_COLUMNS}, xmin::text AS version
   )
   SELECT earlier.refused, inserted.* FROM earlier LEFT JOIN inserted ON true`,
);

/** The contact's RUNNING or WAITING execution of the workflow started over a minute ago, with its row's version; undefined when there is none. */
export async function olderActiveExecution(manager: EntityManager, workflowId: string, contactId: string): Promise<VersionedExecution | undefined> {
  const [active]: VersionedExecution[] = await manager.query(
    `SELECT id, xmin::text AS version FROM workflow_executions
      WHERE workflow_id = $1 AND contact_id = $2 AND status IN ('RUNNING', 'WAITING') AND started_at < now() - ${ORPHAN_MIN_AGE}`,
    [workflowId, contactId],
  );
  return active;
}

/**
 * Ends an execution found orphaned (olderActiveExecution) with a final status and its reason,
 * unless the row was written since it was read (a later delivery of its trigger event claimed it
 * and started its workflow, or a step was recorded); true when it ended it.
 */
export async function endOrphanedExecution(manager: EntityManager, orphan: VersionedExecution, status: ExecutionStatus, error: string): Promise<boolean> {
  const [rows]: [unknown[]] = await manager.query(
    `UPDATE workflow_executions SET status = $3, error = $4, completed_at = now()
      WHERE id = $1 AND xmin::text = $2 AND status IN ('RUNNING', 'WAITING') RETURNING id`,
    [orphan.id, orphan.version, status, error],
  );
  return rows.length > 0;
}

/** The execution of the workflow that the trigger event wrote, in any status, with its age in milliseconds; undefined when there is none. */
export async function executionOfTrigger(
  manager: EntityManager,
  workflowId: string,
  triggerEventId: string,
): Promise<{ execution: WorkflowExecution; ageMs: number } | undefined> {
  const [row]: (ExecutionRow & { age_ms: number })[] = await manager.query(
    `SELECT ${EXECUTION_COLUMNS}, (extract(epoch FROM now() - started_at) * 1000)::float8 AS age_ms
       FROM workflow_executions WHERE workflow_id = $1 AND trigger_event_id = $2`,
    [workflowId, triggerEventId],
  );
  return row && { execution: executionFromRow(manager, row), ageMs: row.age_ms };
}

/**
 * Claims an execution whose workflow a later delivery of its trigger event starts: rewrites the
 * row unchanged (a new version, so the first start's forgetUnstartedExecution and an orphan check
 * leave it), if it is still as inserted (`initial`: the status and step a start writes); false
 * when a workflow moved it or it ended.
 */
export async function claimUnstartedExecution(
  manager: EntityManager,
  executionId: string,
  initial: { status: ExecutionStatus; currentStepId: string | null },
): Promise<boolean> {
  const [rows]: [unknown[]] = await manager.query(
    `UPDATE workflow_executions SET status = status WHERE id = $1 AND status = $2 AND current_step_id IS NOT DISTINCT FROM $3 RETURNING id`,
    [executionId, initial.status, initial.currentStepId],
  );
  return rows.length > 0;
}

/**
 * Deletes an execution whose start Temporal refused, unless the row was written since its insert
 * (`version`). Under the start lock of its workflow and contact (as lockForStart takes it), so that
 * a later delivery of its trigger event either inserts afresh after it or claims the row before it.
 */
export async function deleteUnstartedExecution(dataSource: DataSource, execution: Pick<WorkflowExecution, 'id' | 'workflowId' | 'contactId'>, version: RowVersion): Promise<void> {
  await dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [startLockKey(execution.workflowId, execution.contactId!)]);
    await manager.query('DELETE FROM workflow_executions WHERE id = $1 AND xmin::text = $2', [execution.id, version]);
  });
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

/**
 * SQL that is true when an execution (`e`) waits for one of the event names in `namesColumn`
 * (a text array): its graph has a WAIT_FOR_EVENT step for it, or it started before executions
 * recorded their awaited events (NULL: every event).
 */
export const awaitsEventSql = (namesColumn: string) => `(e.awaited_events IS NULL OR e.awaited_events && ${namesColumn})`;

/** The contact's RUNNING or WAITING executions that wait for an event of that name (awaitsEventSql). */
export async function executionsAwaitingEvent(manager: EntityManager, projectId: string, contactId: string, eventName: string): Promise<string[]> {
  const rows: { id: string }[] = await manager.query(
    `SELECT e.id FROM workflow_executions e
      WHERE e.project_id = $1 AND e.contact_id = $2 AND e.status IN ('RUNNING', 'WAITING') AND ${awaitsEventSql('ARRAY[$3::text]')}`,
    [projectId, contactId, eventName],
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

/**
 * Moves each of several executions still under way to its step and status, in one statement;
 * answers, per move, whether it applied (false when that execution ended or does not exist).
 * The executions must be distinct.
 */
export async function moveManyToStep(manager: EntityManager, moves: { executionId: string; stepId: string; status: ExecutionStatus }[]): Promise<boolean[]> {
  const [rows]: [{ id: string }[]] = await manager.query(
    `UPDATE workflow_executions e SET current_step_id = m.step_id, status = m.status
       FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS m(id, step_id, status)
      WHERE e.id = m.id AND e.status IN ('RUNNING', 'WAITING') RETURNING e.id`,
    [moves.map((move) => move.executionId), moves.map((move) => move.stepId), moves.map((move) => move.status)],
  );
  const moved = new Set(rows.map((row) => row.id));
  return moves.map((move) => moved.has(move.executionId));
}

/**
 * Ends each of several distinct executions still under way with its final status and reason, in
 * one statement; an end that names a step (the EXIT step it ended at) also moves it there.
 * Answers, per end, whether it applied (false when that execution ended or does not exist).
 */
export async function endManyExecutions(
  manager: EntityManager,
  ends: { executionId: string; status: ExecutionStatus; error: string | null; stepId: string | null }[],
): Promise<boolean[]> {
  const [rows]: [{ id: string }[]] = await manager.query(
    `UPDATE workflow_executions e SET status = x.status, error = x.error, completed_at = now(), current_step_id = coalesce(x.step_id, e.current_step_id)
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) AS x(id, status, error, step_id)
      WHERE e.id = x.id AND e.status IN ('RUNNING', 'WAITING') RETURNING e.id`,
    [ends.map((end) => end.executionId), ends.map((end) => end.status), ends.map((end) => end.error), ends.map((end) => end.stepId)],
  );
  const ended = new Set(rows.map((row) => row.id));
  return ends.map((end) => ended.has(end.executionId));
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

/** The name of the project's workflow; undefined when it no longer exists. */
export async function workflowName(manager: EntityManager, projectId: string, workflowId: string): Promise<string | undefined> {
  const [workflow]: { name: string }[] = await manager.query('SELECT name FROM workflows WHERE id = $1 AND project_id = $2', [workflowId, projectId]);
  return workflow?.name;
}
