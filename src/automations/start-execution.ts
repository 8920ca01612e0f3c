import { isGrpcServiceError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
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

/** Starts the Temporal workflow; a server that refuses the search attributes gets the start again without them. */
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

/** The status of the execution's Temporal workflow (`RUNNING`, `COMPLETED`, ...), or `NOT_FOUND` when there is none. */
async function workflowStatus(deps: EngineDeps, executionId: string): Promise<string> {
  try {
    return (await deps.temporal.workflow.getHandle(executionWorkflowId(executionId)).describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return 'NOT_FOUND';
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
  const ended = await workflowStatus(deps, activeId);
  if (ended === 'RUNNING') return false;
  const stopped = ended === 'TERMINATED' || ended === 'CANCELLED';
  await endExecution(manager, activeId, stopped ? 'CANCELLED' : 'FAILED', `Its Temporal workflow ended (${ended}) without recording it`);
  return true;
}

/**
 * Deletes the active record the trigger event already made when its Temporal workflow does not
 * exist: the start after its commit failed, or the process died before it. True when it deleted
 * one; the caller holds the workflow-and-contact lock. A start of that workflow that reaches
 * Temporal later finds no record and does nothing.
 */
async function replaceUnstartedExecution(deps: EngineDeps, manager: EntityManager, workflowId: string, triggerEventId: string | undefined): Promise<boolean> {
  if (triggerEventId === undefined) return false;
  const active = await activeExecutionOfTrigger(manager, workflowId, triggerEventId);
  if (!active || (await workflowStatus(deps, active.id)) !== 'NOT_FOUND') return false;
  return deleteUnstartedExecution(manager, active);
}

/**
 * After a failed start: deletes the record when Temporal answers that its workflow does not
 * exist. Kept when the answer is that it does (the start succeeded although its answer was lost),
 * or when Temporal does not answer: the event's next delivery decides (replaceUnstartedExecution).
 */
async function forgetUnstartedExecution(deps: EngineDeps, execution: WorkflowExecution): Promise<void> {
  try {
    if ((await workflowStatus(deps, execution.id)) === 'NOT_FOUND') await deleteUnstartedExecution(deps.dataSource.manager, execution);
  } catch (err) {
    logger.warn({ err, executionId: execution.id }, 'an execution whose start failed keeps its record until its event is delivered again');
  }
}

/** A start whose record is written: the record and what its Temporal workflow starts with. */
interface RecordedStart {
  execution: WorkflowExecution;
  input: ContactExecutionInput;
  names: { contactEmail: string; automationName: string; startDelayMs?: number };
}

/**
 * Under the start lock of the workflow and contact (taken by lockForStart until the transaction
 * ends): inserts the record, RUNNING or WAITING at an entry DELAY, which the workflow's start
 * delay waits out. An active record whose Temporal workflow ended without recording it is closed
 * first (closeOrphanedExecution), and one of the same trigger event whose workflow was never
 * started is replaced (replaceUnstartedExecution). Null when the start is dropped.
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
  // The record left by this event's start that never reached Temporal also counts as an earlier execution for reentry.
  if (!inserted.execution && (await replaceUnstartedExecution(deps, manager, workflowId, input.triggerEventId))) inserted = await insert();
  if (inserted.reentryRefused) return null;
  if (!inserted.execution && (await closeOrphanedExecution(deps, manager, workflowId, contactId))) inserted = await insert();
  const { execution } = inserted;
  if (!execution) return null;
  return {
    execution,
    input: {
      executionId: execution.id,
      projectId,
      workflowId,
      contactId,
      graph,
      context: input.context ?? {},
      ...(input.eventName === undefined ? {} : { eventName: input.eventName }),
      ...(input.eventData === undefined ? {} : { eventData: input.eventData }),
      ...(delay ? { entryDelayed: true } : {}),
    },
    names: { contactEmail: email, automationName: workflow.name, ...(delay ? { startDelayMs: delay.ms } : {}) },
  };
}

/**
 * Starts one execution of a workflow for a contact (enabled or not: triggers only pick enabled
 * workflows). Null when it is dropped: the contact has an active execution of the workflow
 * (the index `workflow_executions_active_key` keeps one at most), or went through it before and
 * `allowReentry` is false, or the trigger event already started one (`workflow_executions_trigger_event_key`).
 * Starts of the same workflow and contact are serialised by a transaction lock, so concurrent
 * duplicates see each other.
 *
 * Without a trigger event (a start asked for through the API) the record and the Temporal
 * workflow `wf-exec/<executionId>`, which gets the graph as it is now, are made together: the
 * workflow starts inside the record's transaction, and finds no record if the commit fails.
 *
 * With a trigger event the record commits first and the workflow starts after, so that no
 * database connection waits on Temporal: a delivery starts many contacts' executions at once.
 * The event's dispatch stays until its delivery succeeds, so a start that fails, or a process that
 * dies between the commit and the start, has the event delivered again; that delivery replaces the
 * record whose workflow was never started. A failed start also removes its record at once when
 * Temporal answers that the workflow does not exist (forgetUnstartedExecution).
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
    await forgetUnstartedExecution(deps, recorded.execution);
    throw err;
  }
  return recorded.execution;
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
