import { isGrpcServiceError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { DataSource, EntityManager } from 'typeorm';
import { runWorkflowExecution } from '../../workflows/contact-workflow';
import { eventReceived, executionSummary, executionWorkflowId, type ExecutionInput, type Graph, type ReceivedEvent } from '../../workflows/shared';
import { WorkflowExecution } from '../entities/workflow';
import { ApiError, notFound } from '../http/errors';
import { forgetSearchAttributes, searchAttributesReady } from '../orchestration/search-attributes';

/** What the engine needs from the process that starts executions (API or worker). */
export interface EngineDeps {
  dataSource: DataSource;
  temporal: Client;
  taskQueue: string;
  /** Whether executions carry Herald's search attributes; asked of the server once when unset. */
  searchAttributes?: boolean;
}

/** One execution to start: the workflow, the contact, an initial context and the triggering event, if any. */
export interface StartExecutionInput {
  projectId: string;
  workflowId: string;
  contactId: string;
  context?: Record<string, unknown>;
  eventName?: string;
  eventData?: Record<string, unknown>;
  /** The stored event that triggers it: a second start for the same workflow and event is dropped. */
  triggerEventId?: string;
}

const GRPC_INVALID_ARGUMENT = 3;

/**
 * The options that start `wf-exec/<executionId>`, with the search attributes `HeraldProjectId`,
 * `HeraldWorkflowId` and `HeraldContactEmail` when the server has them (see src/orchestration/search-attributes.ts).
 */
export function executionStartOptions(
  input: ExecutionInput,
  options: { taskQueue: string; searchAttributes: boolean; contactEmail: string; automationName: string },
): WorkflowStartOptions<typeof runWorkflowExecution> {
  const keyword = (name: string, value: string) => ({ key: { name, type: 'KEYWORD' as const }, value });
  return {
    taskQueue: options.taskQueue,
    workflowId: executionWorkflowId(input.executionId),
    args: [input],
    staticSummary: executionSummary(options.automationName, options.contactEmail),
    ...(options.searchAttributes
      ? {
          typedSearchAttributes: [
            keyword('HeraldProjectId', input.projectId),
            keyword('HeraldWorkflowId', input.workflowId),
            keyword('HeraldContactEmail', options.contactEmail),
          ],
        }
      : {}),
  };
}

/** A workflow's steps and transitions, read in one statement so that both come from the same moment. */
async function loadGraph(manager: EntityManager, workflowId: string): Promise<Graph> {
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

/** Starts the Temporal workflow; a server that refuses the search attributes gets the start again without them. */
async function startWorkflow(deps: EngineDeps, input: ExecutionInput, names: { contactEmail: string; automationName: string }, searchAttributes: boolean): Promise<void> {
  const start = (withAttributes: boolean) =>
    deps.temporal.workflow.start(runWorkflowExecution, executionStartOptions(input, { taskQueue: deps.taskQueue, searchAttributes: withAttributes, ...names }));
  try {
    try {
      await start(searchAttributes);
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (!searchAttributes || !isGrpcServiceError(cause) || cause.code !== GRPC_INVALID_ARGUMENT) throw err;
      forgetSearchAttributes(deps.temporal);
      await start(false);
    }
  } catch (err) {
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Workflow executions are unavailable right now; try again shortly', {
      details: { reason: (err as Error).message },
    });
  }
}

/** An active record younger than this is taken to be running: its workflow has just been started. */
const ORPHAN_MIN_AGE = "interval '1 minute'";

/**
 * Records the end of the contact's active execution of the workflow when its Temporal workflow
 * is no longer running although the record says it is: an operator terminated it in the
 * Temporal UI (CANCELLED), or it ended some other way without recording it (FAILED). Such a
 * record would otherwise keep the contact from starting the workflow again. True when it
 * closed one; the caller holds the workflow-and-contact lock.
 */
async function closeOrphanedExecution(deps: EngineDeps, manager: EntityManager, workflowId: string, contactId: string): Promise<boolean> {
  const [active]: { id: string }[] = await manager.query(
    `SELECT id FROM workflow_executions
      WHERE workflow_id = $1 AND contact_id = $2 AND status IN ('RUNNING', 'WAITING') AND started_at < now() - ${ORPHAN_MIN_AGE}`,
    [workflowId, contactId],
  );
  if (!active) return false;
  let ended: string;
  try {
    ended = (await deps.temporal.workflow.getHandle(executionWorkflowId(active.id)).describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    ended = 'NOT_FOUND';
  }
  if (ended === 'RUNNING') return false;
  const stopped = ended === 'TERMINATED' || ended === 'CANCELLED';
  await manager.query(
    `UPDATE workflow_executions SET status = $2, error = $3, completed_at = now() WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`,
    [active.id, stopped ? 'CANCELLED' : 'FAILED', `Its Temporal workflow ended (${ended}) without recording it`],
  );
  return true;
}

/**
 * Starts one execution of a workflow for a contact (enabled or not: triggers only pick enabled
 * workflows). Null when it is dropped: the contact has an active execution of the workflow
 * (the index `workflow_executions_active_key` keeps one at most), or went through it before and
 * `allowReentry` is false, or the trigger event already started one (`workflow_executions_trigger_event_key`).
 * An active record whose Temporal workflow was terminated from outside is closed first (closeOrphanedExecution). Starts of the same workflow and contact are serialised by a
 * transaction lock, so concurrent duplicates see each other. The record (RUNNING) and the
 * Temporal workflow `wf-exec/<executionId>`, which gets the graph as it is now, are made
 * together: the workflow starts before the commit, and finds no record if the commit fails.
 * 404 for a workflow or contact not in the project; 503 when Temporal is unavailable.
 */
export async function startExecution(deps: EngineDeps, input: StartExecutionInput): Promise<WorkflowExecution | null> {
  const { projectId, workflowId, contactId } = input;
  const searchAttributes = deps.searchAttributes ?? (await searchAttributesReady(deps.temporal));
  return deps.dataSource.transaction(async (manager) => {
    const [workflow]: { allow_reentry: boolean; name: string }[] = await manager.query(
      'SELECT allow_reentry, name FROM workflows WHERE id = $1 AND project_id = $2 FOR SHARE',
      [workflowId, projectId],
    );
    if (!workflow) throw notFound('Workflow');
    const [contact]: { email: string }[] = await manager.query('SELECT email FROM contacts WHERE id = $1 AND project_id = $2', [contactId, projectId]);
    if (!contact) throw notFound('Contact');
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`wf-exec:${workflowId}:${contactId}`]);
    if (!workflow.allow_reentry) {
      const earlier: unknown[] = await manager.query('SELECT 1 FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2 LIMIT 1', [workflowId, contactId]);
      if (earlier.length > 0) return null;
    }
    const insert = async (): Promise<{ id: string } | undefined> =>
      (
        (await manager.query(
          `INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status, context, trigger_event_id)
           VALUES ($1, $2, $3, 'RUNNING', $4, $5) ON CONFLICT DO NOTHING RETURNING id`,
          [projectId, workflowId, contactId, JSON.stringify(input.context ?? {}), input.triggerEventId ?? null],
        )) as { id: string }[]
      )[0];
    let row = await insert();
    if (!row && (await closeOrphanedExecution(deps, manager, workflowId, contactId))) row = await insert();
    if (!row) return null;
    const graph = await loadGraph(manager, workflowId);
    const executionInput: ExecutionInput = {
      executionId: row.id,
      projectId,
      workflowId,
      contactId,
      graph,
      context: input.context ?? {},
      ...(input.eventName === undefined ? {} : { eventName: input.eventName }),
      ...(input.eventData === undefined ? {} : { eventData: input.eventData }),
    };
    await startWorkflow(deps, executionInput, { contactEmail: contact.email, automationName: workflow.name }, searchAttributes);
    return manager.findOneByOrFail(WorkflowExecution, { id: row.id });
  });
}

/**
 * Cancels a RUNNING or WAITING execution: cancels `wf-exec/<executionId>` (which then records
 * CANCELLED itself and marks its step's unsent email FAILED) and marks the record CANCELLED at
 * once, also when the Temporal workflow is already gone. An execution that already ended is
 * returned as it is. 404 when the project's workflow has no such execution; 503 when Temporal is unavailable.
 */
export async function cancelExecution(deps: EngineDeps, projectId: string, workflowId: string, executionId: string): Promise<WorkflowExecution> {
  const executions = deps.dataSource.getRepository(WorkflowExecution);
  const execution = await executions.findOneBy({ projectId, workflowId, id: executionId });
  if (!execution) throw notFound('Execution');
  if (execution.status !== 'RUNNING' && execution.status !== 'WAITING') return execution;
  try {
    await deps.temporal.workflow.getHandle(executionWorkflowId(executionId)).cancel();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Workflow executions are unavailable right now; try again shortly', {
        details: { reason: (err as Error).message },
      });
    }
  }
  await deps.dataSource.query(
    `UPDATE workflow_executions SET status = 'CANCELLED', completed_at = now() WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`,
    [executionId],
  );
  return executions.findOneByOrFail({ id: executionId });
}

/**
 * Hands an event of a contact to each of its RUNNING or WAITING executions (signal
 * `eventReceived`); a WAIT_FOR_EVENT step waiting for that name moves on. Executions whose
 * Temporal workflow is gone are passed over. Returns how many were signalled.
 */
export async function signalWaitingExecutions(
  deps: Pick<EngineDeps, 'dataSource' | 'temporal'>,
  projectId: string,
  contactId: string,
  event: ReceivedEvent,
): Promise<number> {
  const rows: { id: string }[] = await deps.dataSource.query(
    `SELECT id FROM workflow_executions WHERE project_id = $1 AND contact_id = $2 AND status IN ('RUNNING', 'WAITING')`,
    [projectId, contactId],
  );
  const signalled = await Promise.all(
    rows.map(async ({ id }) => {
      try {
        await deps.temporal.workflow.getHandle(executionWorkflowId(id)).signal(eventReceived, { ...(event.id ? { id: event.id } : {}), name: event.name, data: event.data ?? {} });
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    }),
  );
  return signalled.filter(Boolean).length;
}
