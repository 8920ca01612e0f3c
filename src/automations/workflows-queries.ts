import type { EntityManager } from 'typeorm';
import { referencedFields, type Condition } from '../conditions/condition';
import { isPlainObject } from '../contacts/data-rules';
import { Workflow, WorkflowExecution, WorkflowStep, WorkflowTransition, type ExecutionStatus } from '../entities/workflow';
import { awaitsEventSql } from './executions-queries';

/**
 * The SQL of workflows, their graphs and executions. Indexes (migrations/1764100000000-workflows.ts):
 * workflows by project (`workflows_project_idx`) and by enabled trigger (`workflows_trigger_idx`),
 * steps and transitions by workflow, executions by workflow in page order
 * (`workflow_executions_workflow_idx`) and the active ones by project (`workflow_executions_waiting_idx`).
 */

/** A workflow's steps and transitions, in creation order. */
export interface Graph {
  steps: WorkflowStep[];
  transitions: WorkflowTransition[];
}

/** One workflow of the project, locked for the transaction when asked (graph edits, deletion); null when absent. */
export function findWorkflow(manager: EntityManager, projectId: string, id: string, lock = false): Promise<Workflow | null> {
  return manager.findOne(Workflow, { where: { projectId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
}

/** Every workflow of the project, newest first. */
export function listWorkflows(manager: EntityManager, projectId: string): Promise<Workflow[]> {
  return manager.find(Workflow, { where: { projectId }, order: { createdAt: 'DESC', id: 'DESC' } });
}

/** Stores a new workflow or the changes to a loaded one. */
export function saveWorkflow(manager: EntityManager, workflow: Partial<Workflow>): Promise<Workflow> {
  return manager.save(manager.create(Workflow, workflow));
}

/** Deletes a workflow; its graph and executions go with it (foreign keys). */
export async function deleteWorkflow(manager: EntityManager, id: string): Promise<void> {
  await manager.delete(Workflow, { id });
}

/** Marks a workflow as changed (its graph was edited). */
export async function touchWorkflow(manager: EntityManager, id: string): Promise<void> {
  await manager.query('UPDATE workflows SET updated_at = now() WHERE id = $1', [id]);
}

/** The graphs of some workflows, by workflow id. */
export async function graphsOf(manager: EntityManager, workflowIds: string[]): Promise<Map<string, Graph>> {
  const graphs = new Map<string, Graph>(workflowIds.map((id) => [id, { steps: [], transitions: [] }]));
  if (workflowIds.length === 0) return graphs;
  const [steps, transitions] = await Promise.all([
    manager.createQueryBuilder(WorkflowStep, 's').where('s.workflowId IN (:...ids)', { ids: workflowIds }).orderBy('s.createdAt').addOrderBy('s.id').getMany(),
    manager.createQueryBuilder(WorkflowTransition, 't').where('t.workflowId IN (:...ids)', { ids: workflowIds }).orderBy('t.createdAt').addOrderBy('t.id').getMany(),
  ]);
  for (const step of steps) graphs.get(step.workflowId)!.steps.push(step);
  for (const transition of transitions) graphs.get(transition.workflowId)!.transitions.push(transition);
  return graphs;
}

/** The graph of one workflow. */
export async function graphOf(manager: EntityManager, workflowId: string): Promise<Graph> {
  return (await graphsOf(manager, [workflowId])).get(workflowId)!;
}

/** How many executions of the workflow are RUNNING or WAITING. */
export async function countActiveExecutions(manager: EntityManager, workflowId: string): Promise<number> {
  const [{ count }] = await manager.query(
    `SELECT count(*)::int AS count FROM workflow_executions WHERE workflow_id = $1 AND status IN ('RUNNING', 'WAITING')`,
    [workflowId],
  );
  return count;
}

/** Whether the contact has a RUNNING or WAITING execution of the workflow. */
export async function hasActiveExecution(manager: EntityManager, workflowId: string, contactId: string): Promise<boolean> {
  const rows = await manager.query(
    `SELECT 1 FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2 AND status IN ('RUNNING', 'WAITING') LIMIT 1`,
    [workflowId, contactId],
  );
  return rows.length > 0;
}

/** One execution of the project's workflow, or null. */
export function findExecution(manager: EntityManager, projectId: string, workflowId: string, id: string): Promise<WorkflowExecution | null> {
  return manager.findOneBy(WorkflowExecution, { projectId, workflowId, id });
}

/** A keyset position in an execution list (newest first): `started_at` as text and the id. */
export interface ExecutionCursor {
  v: string;
  id: string;
}

/** Maps a raw `workflow_executions` row to the entity. */
function executionFromRow(row: Record<string, unknown>): WorkflowExecution {
  return Object.assign(new WorkflowExecution(), {
    id: row.id,
    projectId: row.project_id,
    workflowId: row.workflow_id,
    contactId: row.contact_id,
    status: row.status,
    currentStepId: row.current_step_id,
    context: row.context,
    error: row.error,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  });
}

/** `limit` executions of a workflow after a keyset position, newest first, optionally of one status. */
export async function readExecutions(
  manager: EntityManager,
  workflowId: string,
  status: ExecutionStatus | undefined,
  limit: number,
  cursor: ExecutionCursor | undefined,
): Promise<{ execution: WorkflowExecution; position: ExecutionCursor }[]> {
  const params: unknown[] = [workflowId, status ?? null, limit];
  let keyset = '';
  if (cursor) {
    params.push(cursor.v, cursor.id);
    keyset = ' AND (started_at, id) < ($4::timestamptz, $5::uuid)';
  }
  const rows: Record<string, unknown>[] = await manager.query(
    `SELECT *, started_at::text AS sort_value FROM workflow_executions
      WHERE workflow_id = $1 AND ($2::text IS NULL OR status = $2)${keyset}
      ORDER BY started_at DESC, id DESC LIMIT $3`,
    params,
  );
  return rows.map((row) => ({ execution: executionFromRow(row), position: { v: row.sort_value as string, id: row.id as string } }));
}

/** How many executions of a workflow there are, optionally of one status. */
export async function countExecutions(manager: EntityManager, workflowId: string, status: ExecutionStatus | undefined): Promise<number> {
  const [{ count }] = await manager.query(
    'SELECT count(*)::int AS count FROM workflow_executions WHERE workflow_id = $1 AND ($2::text IS NULL OR status = $2)',
    [workflowId, status ?? null],
  );
  return count;
}

/** The ids of a workflow's RUNNING and WAITING executions after a keyset position, in id order. */
export async function activeExecutionIds(manager: EntityManager, workflowId: string, after: string | null, limit: number): Promise<string[]> {
  const rows: { id: string }[] = await manager.query(
    `SELECT id FROM workflow_executions
      WHERE workflow_id = $1 AND status IN ('RUNNING', 'WAITING') AND ($2::uuid IS NULL OR id > $2::uuid)
      ORDER BY id LIMIT $3`,
    [workflowId, after, limit],
  );
  return rows.map((row) => row.id);
}

/** The enabled workflows of a project triggered by one of the event names. */
export function triggeredWorkflows(manager: EntityManager, projectId: string, eventNames: string[]): Promise<Workflow[]> {
  return manager
    .createQueryBuilder(Workflow, 'w')
    .where('w.projectId = :projectId AND w.enabled', { projectId })
    .andWhere(`w.trigger_config->>'eventName' IN (:...eventNames)`, { eventNames })
    .orderBy('w.createdAt')
    .addOrderBy('w.id')
    .getMany();
}

/**
 * What a batch of a project's events may set off, in one statement: whether an enabled workflow
 * is triggered by one of the event names, and which of the contacts have a RUNNING or WAITING
 * execution of any workflow of the project that waits for one of them (awaitsEventSql).
 */
export async function triggerCandidates(
  manager: EntityManager,
  projectId: string,
  eventNames: string[],
  contactIds: string[],
): Promise<{ triggered: boolean; active: Set<string> }> {
  const [row]: { triggered: boolean; active: string[] }[] = await manager.query(
    `SELECT EXISTS (SELECT 1 FROM workflows WHERE project_id = $1 AND enabled AND trigger_config->>'eventName' = ANY($2::text[])) AS triggered,
            ARRAY(SELECT DISTINCT e.contact_id::text FROM workflow_executions e
                   WHERE e.project_id = $1 AND e.status IN ('RUNNING', 'WAITING') AND e.contact_id = ANY($3::uuid[])
                     AND ${awaitsEventSql('$2::text[]')}) AS active`,
    [projectId, eventNames, contactIds],
  );
  return { triggered: row.triggered, active: new Set(row.active) };
}

/** A WAITING execution with its workflow's name, for `/activity/upcoming`. */
export interface WaitingExecutionRow {
  id: string;
  workflow_id: string;
  workflow_name: string;
  contact_id: string | null;
  current_step_id: string | null;
  started_at: Date;
}

/** The project's WAITING executions, longest waiting first. */
export function waitingExecutions(manager: EntityManager, projectId: string, limit: number): Promise<WaitingExecutionRow[]> {
  return manager.query(
    `SELECT e.id, e.workflow_id, w.name AS workflow_name, e.contact_id, e.current_step_id, e.started_at
       FROM workflow_executions e JOIN workflows w ON w.id = e.workflow_id
      WHERE e.project_id = $1 AND e.status = 'WAITING'
      ORDER BY e.started_at, e.id LIMIT $2`,
    [projectId, limit],
  );
}

/** The SEND_EMAIL steps of a project's workflows that send the template, newest workflow first. */
export function workflowsUsingTemplate(manager: EntityManager, projectId: string, templateId: string): Promise<{ id: string; name: string; stepId: string }[]> {
  return manager.query(
    `SELECT w.id, w.name, s.id AS "stepId" FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
      WHERE w.project_id = $1 AND s.type = 'SEND_EMAIL' AND s.config->>'templateId' = $2
      ORDER BY w.created_at DESC, w.id DESC, s.created_at, s.id`,
    [projectId, templateId],
  );
}

/** What a workflow refers to by name: its trigger, the events it waits for, the fields its steps read or write. */
interface WorkflowReferences {
  id: string;
  name: string;
  events: Set<string>;
  fields: Set<string>;
}

/** The names every workflow of the project refers to, newest workflow first. */
async function workflowReferences(manager: EntityManager, projectId: string): Promise<WorkflowReferences[]> {
  const rows: { id: string; name: string; trigger: string | null; steps: { type: string; config: Record<string, unknown> }[] }[] = await manager.query(
    `SELECT w.id, w.name, w.trigger_config->>'eventName' AS trigger,
            coalesce(json_agg(json_build_object('type', s.type, 'config', s.config)) FILTER (WHERE s.id IS NOT NULL), '[]') AS steps
       FROM workflows w
       LEFT JOIN workflow_steps s ON s.workflow_id = w.id AND s.type IN ('CONDITION', 'WAIT_FOR_EVENT', 'UPDATE_CONTACT')
      WHERE w.project_id = $1
      GROUP BY w.id ORDER BY w.created_at DESC, w.id DESC`,
    [projectId],
  );
  return rows.map((row) => {
    const events = new Set(row.trigger ? [row.trigger] : []);
    const fields = new Set<string>();
    for (const { type, config } of row.steps) {
      if (type === 'WAIT_FOR_EVENT' && typeof config.eventName === 'string') events.add(config.eventName);
      if (type === 'CONDITION' && isPlainObject(config.condition)) {
        for (const field of referencedFields(config.condition as unknown as Condition)) {
          if (field.startsWith('event.') && !field.startsWith('event.data.')) events.add(field.slice('event.'.length));
          else fields.add(field);
        }
      }
      if (type === 'UPDATE_CONTACT') {
        for (const key of Object.keys(isPlainObject(config.data) ? config.data : {})) fields.add(`data.${key}`);
        if (config.subscribed !== undefined) fields.add('subscribed');
      }
    }
    return { id: row.id, name: row.name, events, fields };
  });
}

/** The workflows of a project whose CONDITION or UPDATE_CONTACT steps reference a field `matches` accepts, newest first. */
export async function workflowsReferencingField(manager: EntityManager, projectId: string, matches: (field: string) => boolean) {
  return (await workflowReferences(manager, projectId)).filter((refs) => [...refs.fields].some(matches)).map(({ id, name }) => ({ id, name }));
}

/** The workflows of a project triggered by, waiting for or filtering on an event name, newest first. */
export async function workflowsReferencingEvent(manager: EntityManager, projectId: string, eventName: string) {
  return (await workflowReferences(manager, projectId)).filter((refs) => refs.events.has(eventName)).map(({ id, name }) => ({ id, name }));
}

/**
 * The `data` keys seen on the latest events of the given names (at most `sample` events per
 * name, read through `events_project_name_idx`), with the JSON type their values have most often.
 */
export async function eventDataKeys(manager: EntityManager, projectId: string, eventNames: string[], sample: number): Promise<{ key: string; type: string }[]> {
  if (eventNames.length === 0) return [];
  return manager.query(
    `SELECT k.key, mode() WITHIN GROUP (ORDER BY jsonb_typeof(k.value)) AS type
       FROM unnest($2::text[]) AS n(name)
       CROSS JOIN LATERAL (
         SELECT data FROM events WHERE project_id = $1 AND name = n.name ORDER BY created_at DESC LIMIT $3
       ) e
       CROSS JOIN LATERAL jsonb_each(e.data) AS k
      GROUP BY k.key ORDER BY k.key`,
    [projectId, eventNames, sample],
  );
}

/** The trigger event names of a project's workflows. */
export async function triggerEventNames(manager: EntityManager, projectId: string): Promise<string[]> {
  const rows: { name: string }[] = await manager.query(
    `SELECT DISTINCT trigger_config->>'eventName' AS name FROM workflows WHERE project_id = $1 AND trigger_config ? 'eventName'`,
    [projectId],
  );
  return rows.map((row) => row.name);
}
