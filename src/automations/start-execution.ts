import { isGrpcServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { DataSource, EntityManager } from 'typeorm';
import { runWorkflowExecutionV2, type ContactExecutionInput } from '../../workflows/contact-workflow';
import { awaitedEvents, entryDelay } from '../../workflows/graph';
import { eventReceived, executionSummary, executionWorkflowId, type ReceivedEvent } from '../../workflows/shared';
import type { WorkflowExecution } from '../entities/workflow';
import { ApiError, notFound } from '../http/errors';
import { logger } from '../logger';
import { forgetSearchAttributes, searchAttributesReady } from '../orchestration/search-attributes';
import {
  activeExecutionOfTrigger,
  cancelActiveExecution,
  deleteUnstartedExecution,
  endExecution,
  executionById,
  insertStartedExecution,
  lockForStart,
  olderActiveExecutionId,
  executionsAwaitingEvent,
} from './executions-queries';
import { findExecution } from './workflows-queries';

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
 * `HeraldWorkflowId` and `HeraldContactEmail` when the server has them (see src/orchestration/search-attributes.ts),
 * and the start delay that waits out an entry DELAY (`startDelayMs`).
 */
export function executionStartOptions(
  input: ContactExecutionInput,
  options: { taskQueue: string; searchAttributes: boolean; contactEmail: string; automationName: string; startDelayMs?: number },
): WorkflowStartOptions<typeof runWorkflowExecutionV2> {
  const keyword = (name: string, value: string) => ({ key: { name, type: 'KEYWORD' as const }, value });
  return {
    taskQueue: options.taskQueue,
    workflowId: executionWorkflowId(input.executionId),
    // An execution's workflow runs once: a second start of it (a trigger event's redelivery) is refused, also after it closed.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    ...(options.startDelayMs === undefined ? {} : { startDelay: options.startDelayMs }),
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

/**
 * Starts the Temporal workflow; a server that refuses the search attributes gets the start again
 * without them. A workflow of that execution that exists already (running or closed) counts as started.
 */
async function startWorkflow(
  deps: EngineDeps,
  input: ContactExecutionInput,
  names: { contactEmail: string; automationName: string; startDelayMs?: number },
  searchAttributes: boolean,
): Promise<void> {
  const start = (withAttributes: boolean) =>
    deps.temporal.workflow.start(runWorkflowExecutionV2, executionStartOptions(input, { taskQueue: deps.taskQueue, searchAttributes: withAttributes, ...names }));
  try {
    try {
      await start(searchAttributes);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
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

/**
 * Records the end of the contact's active execution of the workflow when its Temporal workflow
 * is no longer running although the record says it is: an operator terminated it in the
 * Temporal UI (CANCELLED), or it ended some other way without recording it (FAILED). Such a
 * record would otherwise keep the contact from starting the workflow again. True when it
 * closed one; the caller holds the workflow-and-contact lock.
 */
async function closeOrphanedExecution(deps: EngineDeps, manager: EntityManager, workflowId: string, contactId: string): Promise<boolean> {
  const activeId = await olderActiveExecutionId(manager, workflowId, contactId);
  if (!activeId) return false;
  let ended: string;
  try {
    ended = (await deps.temporal.workflow.getHandle(executionWorkflowId(activeId)).describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    ended = 'NOT_FOUND';
  }
  if (ended === 'RUNNING') return false;
  const stopped = ended === 'TERMINATED' || ended === 'CANCELLED';
  await endExecution(manager, activeId, stopped ? 'CANCELLED' : 'FAILED', `Its Temporal workflow ended (${ended}) without recording it`);
  return true;
}

/**
 * After a failed start: deletes the record if it is still as inserted, as the rolled-back
 * transaction of an API start would leave nothing. A workflow that did start (its answer was lost)
 * and ran a step has moved the record, which is kept; one that had not finds no record and does
 * nothing. When the delete fails, the event's next delivery starts the record's workflow.
 */
async function forgetUnstartedExecution(deps: EngineDeps, execution: WorkflowExecution): Promise<void> {
  try {
    await deleteUnstartedExecution(deps.dataSource.manager, execution);
  } catch (err) {
    logger.warn({ err, executionId: execution.id }, 'an execution whose start failed keeps its record until its event is delivered again');
  }
}

/** A start whose record is written: the record, what its Temporal workflow starts with, and whether an earlier delivery of its trigger event wrote it. */
interface RecordedStart {
  execution: WorkflowExecution;
  input: ContactExecutionInput;
  names: { contactEmail: string; automationName: string; startDelayMs?: number };
  earlier: boolean;
}

/**
 * Under the start lock of the workflow and contact (taken by lockForStart until the transaction
 * ends): inserts the record, RUNNING or WAITING at an entry DELAY, which the workflow's start
 * delay waits out. When the trigger event already wrote a record that is still active, that
 * record is answered (`earlier`): its workflow may not have started. An active record whose
 * Temporal workflow ended without recording it is closed first (closeOrphanedExecution). Null
 * when the start is dropped.
 */
async function recordStart(deps: EngineDeps, manager: EntityManager, input: StartExecutionInput): Promise<RecordedStart | null> {
  const { projectId, workflowId, contactId } = input;
  const workflow = await lockForStart(manager, projectId, workflowId, contactId);
  if (!workflow) throw notFound('Workflow');
  const { email, graph } = workflow;
  if (email === null) throw notFound('Contact');
  // A graph that starts with a DELAY waits it out as the workflow's start delay: one workflow task less.
  const delay = entryDelay(graph);
  const insert = () =>
    insertStartedExecution(manager, {
      projectId,
      workflowId,
      contactId,
      context: input.context ?? {},
      triggerEventId: input.triggerEventId ?? null,
      allowReentry: workflow.allowReentry,
      status: delay ? 'WAITING' : 'RUNNING',
      currentStepId: delay?.step.id ?? null,
      awaitedEvents: awaitedEvents(graph),
    });
  let inserted = await insert();
  // The trigger event's own record also counts as an earlier execution for reentry: look for it first.
  const earlier = !inserted.execution && input.triggerEventId !== undefined ? await activeExecutionOfTrigger(manager, workflowId, input.triggerEventId) : undefined;
  if (!earlier && inserted.reentryRefused) return null;
  if (!earlier && !inserted.execution && (await closeOrphanedExecution(deps, manager, workflowId, contactId))) inserted = await insert();
  const execution = earlier ?? inserted.execution;
  if (!execution) return null;
  // An earlier record still at the entry DELAY waits out what is left of it.
  const delayed = delay && (!earlier || (execution.status === 'WAITING' && execution.currentStepId === delay.step.id));
  const startDelayMs = !delayed ? 0 : earlier ? Math.max(0, execution.startedAt.getTime() + delay.ms - Date.now()) : delay.ms;
  return {
    execution,
    input: {
      executionId: execution.id,
      projectId,
      workflowId,
      contactId,
      graph,
      context: execution.context,
      ...(input.eventName === undefined ? {} : { eventName: input.eventName }),
      ...(input.eventData === undefined ? {} : { eventData: input.eventData }),
      ...(delayed ? { entryDelayed: true } : {}),
      ...(delayed && earlier ? { entryDelayLeftMs: startDelayMs } : {}),
    },
    names: { contactEmail: email, automationName: workflow.name, ...(startDelayMs > 0 ? { startDelayMs } : {}) },
    earlier: earlier !== undefined,
  };
}

/**
 * Starts one execution of a workflow for a contact (enabled or not: triggers only pick enabled
 * workflows). Null when it is dropped: the contact has an active execution of the workflow
 * (the index `workflow_executions_active_key` keeps one at most), or went through it before and
 * `allowReentry` is false, or the trigger event already started one (`workflow_executions_trigger_event_key`).
 * Starts of the same workflow and contact are serialised by a transaction lock, so concurrent
 * duplicates see each other. The Temporal workflow is `wf-exec/<executionId>`, with the graph as
 * it is now.
 *
 * Without a trigger event (a start asked for through the API) the record and the workflow are
 * made together: the workflow starts inside the record's transaction, and finds no record if the
 * commit fails.
 *
 * With a trigger event the record commits first and the workflow starts after, so that no
 * database connection waits on Temporal: a delivery starts many contacts' executions at once.
 * A failed start deletes its record again if no step ran (forgetUnstartedExecution). The event's
 * dispatch stays until its delivery succeeds, so after a failed start, or a process that died
 * between the commit and the start, the event is delivered again: that delivery starts the
 * workflow of the record the event wrote, if it is still active; Temporal refuses a second
 * workflow of one execution, so it runs once.
 * 404 for a workflow or contact not in the project; 503 when Temporal is unavailable.
 */
export async function startExecution(deps: EngineDeps, input: StartExecutionInput): Promise<WorkflowExecution | null> {
  const searchAttributes = deps.searchAttributes ?? (await searchAttributesReady(deps.temporal));
  if (input.triggerEventId === undefined) {
    return deps.dataSource.transaction(async (manager) => {
      const recorded = await recordStart(deps, manager, input);
      if (recorded) await startWorkflow(deps, recorded.input, recorded.names, searchAttributes);
      return recorded?.execution ?? null;
    });
  }
  const recorded = await deps.dataSource.transaction((manager) => recordStart(deps, manager, input));
  if (!recorded) return null;
  try {
    await startWorkflow(deps, recorded.input, recorded.names, searchAttributes);
  } catch (err) {
    if (!recorded.earlier) await forgetUnstartedExecution(deps, recorded.execution);
    throw err;
  }
  return recorded.earlier ? null : recorded.execution;
}

/**
 * Cancels a RUNNING or WAITING execution: cancels `wf-exec/<executionId>` (which then records
 * CANCELLED itself and marks its step's unsent email FAILED) and marks the record CANCELLED at
 * once, also when the Temporal workflow is already gone. An execution that already ended is
 * returned as it is. 404 when the project's workflow has no such execution; 503 when Temporal is unavailable.
 */
export async function cancelExecution(deps: EngineDeps, projectId: string, workflowId: string, executionId: string): Promise<WorkflowExecution> {
  const execution = await findExecution(deps.dataSource.manager, projectId, workflowId, executionId);
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
  await cancelActiveExecution(deps.dataSource.manager, executionId);
  return executionById(deps.dataSource.manager, executionId);
}

/**
 * Hands an event of a contact to each of its RUNNING or WAITING executions whose graph waits for
 * that name (signal `eventReceived`); a WAIT_FOR_EVENT step waiting for it moves on. The others,
 * which would only drop it, are not woken. Executions whose Temporal workflow is gone are passed
 * over. Returns how many were signalled.
 */
export async function signalWaitingExecutions(
  deps: Pick<EngineDeps, 'dataSource' | 'temporal'>,
  projectId: string,
  contactId: string,
  event: ReceivedEvent,
): Promise<number> {
  const ids = await executionsAwaitingEvent(deps.dataSource.manager, projectId, contactId, event.name);
  const signalled = await Promise.all(
    ids.map(async (id) => {
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
