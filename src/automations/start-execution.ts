import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { DataSource, EntityManager } from 'typeorm';
import { runWorkflowExecutionV2, type ContactExecutionInput } from '../../workflows/contact-workflow';
import { awaitedEvents, entryDelay } from '../../workflows/graph';
import { eventReceived, executionSummary, executionWorkflowId, type ReceivedEvent } from '../../workflows/shared';
import type { WorkflowExecution } from '../entities/workflow';
import { ApiError, notFound } from '../http/errors';
import { logger } from '../logger';
import { GrpcStatus, grpcCode } from '../orchestration/grpc-status';
import { forgetSearchAttributes, searchAttributesReady } from '../orchestration/search-attributes';
import {
  cancelActiveExecution,
  claimUnstartedExecution,
  deleteUnstartedExecution,
  endOrphanedExecution,
  executionOfTrigger,
  executionById,
  insertStartedExecution,
  lockForStart,
  olderActiveExecution,
  executionsAwaitingEvent,
  type RowVersion,
  type VersionedExecution,
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
 * gRPC codes with which Temporal answered the last attempt that it did not start the workflow
 * (others leave it open whether it did). An earlier attempt the client retried may still have
 * started it: that workflow then finds its record deleted at its first step and does nothing.
 */
const REFUSALS = new Set<number>([
  GrpcStatus.INVALID_ARGUMENT,
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.UNAUTHENTICATED,
]);

/** A start that failed: 503, and whether Temporal answered that it did not start the workflow (`refused`). */
class StartFailed extends ApiError {
  constructor(
    readonly refused: boolean,
    reason: string,
  ) {
    super(503, 'SERVICE_UNAVAILABLE', 'Workflow executions are unavailable right now; try again shortly', { details: { reason } });
  }
}

/**
 * Starts the Temporal workflow; a server that refuses the search attributes gets the start again
 * without them. A workflow of that execution that exists already (running or closed) counts as
 * started: Temporal refuses a second one (REJECT_DUPLICATE). Throws StartFailed.
 */
async function startWorkflow(deps: EngineDeps, start: RecordedStart, searchAttributes: boolean): Promise<void> {
  const attempt = (withAttributes: boolean) =>
    deps.temporal.workflow.start(runWorkflowExecutionV2, executionStartOptions(start.input, { taskQueue: deps.taskQueue, searchAttributes: withAttributes, ...start.names }));
  try {
    try {
      await attempt(searchAttributes);
    } catch (err) {
      if (!searchAttributes || grpcCode(err) !== GrpcStatus.INVALID_ARGUMENT) throw err;
      forgetSearchAttributes(deps.temporal);
      await attempt(false);
    }
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    const code = grpcCode(err);
    throw new StartFailed(code !== undefined && REFUSALS.has(code), (err as Error).message);
  }
}

/**
 * Closes an older active execution (olderActiveExecution) whose Temporal workflow is no longer
 * running although the record says it is: an operator terminated it in the Temporal UI
 * (CANCELLED), or it ended some other way without recording it, or never started (FAILED). Such a
 * record would otherwise keep the contact from starting the workflow again. Temporal is asked
 * outside any transaction, and the record is closed only if nobody wrote it since it was read (a
 * later delivery of its trigger event may have claimed it and started its workflow meanwhile).
 * True when it closed it.
 */
async function closeOrphanedExecution(deps: EngineDeps, orphan: VersionedExecution): Promise<boolean> {
  let ended: string;
  try {
    ended = (await deps.temporal.workflow.getHandle(executionWorkflowId(orphan.id)).describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    ended = 'NOT_FOUND';
  }
  if (ended === 'RUNNING') return false;
  const stopped = ended === 'TERMINATED' || ended === 'CANCELLED';
  return endOrphanedExecution(deps.dataSource.manager, orphan, stopped ? 'CANCELLED' : 'FAILED', `Its Temporal workflow ended (${ended}) without recording it`);
}

/**
 * After a start that Temporal refused: deletes the record unless it was written since its insert,
 * as the rolled-back transaction of an API start would leave nothing. Kept when a later delivery
 * of the event claimed it meanwhile, or when the delete fails: the event's next delivery starts
 * the record's workflow.
 */
async function forgetUnstartedExecution(deps: EngineDeps, start: RecordedStart): Promise<void> {
  if (!start.version) return;
  try {
    await deleteUnstartedExecution(deps.dataSource, start.execution, start.version);
  } catch (err) {
    logger.warn({ err, executionId: start.execution.id }, 'an execution whose start was refused keeps its record until its event is delivered again');
  }
}

/**
 * A start whose record is written: the record, what its Temporal workflow starts with, and the
 * row's version when this start inserted it (none when an earlier delivery of the trigger event did).
 */
interface RecordedStart {
  execution: WorkflowExecution;
  input: ContactExecutionInput;
  names: { contactEmail: string; automationName: string; startDelayMs?: number };
  version?: RowVersion;
}

/** What recordStart did: a record to start, an older active execution to check in Temporal first (`orphan`), or null when the start is dropped. */
type Recorded = { start: RecordedStart } | { orphan: VersionedExecution } | null;

/**
 * Under the start lock of the workflow and contact (taken by lockForStart until the transaction
 * ends): inserts the record, RUNNING or WAITING at an entry DELAY, which the workflow's start
 * delay waits out. When the trigger event already wrote a record, that one is started if it is
 * still as inserted (an earlier delivery committed it and may not have started its workflow; it
 * is claimed, so that start's clean-up leaves it), and otherwise the start is dropped: its
 * workflow ran. An active execution older than ORPHAN_MIN_AGE that holds the contact's place is
 * answered as `orphan` when `checkOrphan`.
 */
async function recordStart(manager: EntityManager, input: StartExecutionInput, checkOrphan: boolean): Promise<Recorded> {
  const { projectId, workflowId, contactId, triggerEventId } = input;
  const workflow = await lockForStart(manager, projectId, workflowId, contactId);
  if (!workflow) throw notFound('Workflow');
  const { email, graph } = workflow;
  if (email === null) throw notFound('Contact');
  // A graph that starts with a DELAY waits it out as the workflow's start delay: one workflow task less.
  const delay = entryDelay(graph);
  const initial = { status: delay ? ('WAITING' as const) : ('RUNNING' as const), currentStepId: delay?.step.id ?? null };
  const inserted = await insertStartedExecution(manager, {
    projectId,
    workflowId,
    contactId,
    context: input.context ?? {},
    triggerEventId: triggerEventId ?? null,
    allowReentry: workflow.allowReentry,
    ...initial,
    awaitedEvents: awaitedEvents(graph),
  });
  let execution = inserted.execution;
  let delayLeftMs = delay?.ms;
  if (!execution && triggerEventId !== undefined) {
    // The trigger event's own record also counts as an earlier execution for reentry: look for it first.
    const own = await executionOfTrigger(manager, workflowId, triggerEventId);
    if (own) {
      if (!(await claimUnstartedExecution(manager, own.execution.id, initial))) return null;
      execution = own.execution;
      if (delay) delayLeftMs = Math.max(0, delay.ms - own.ageMs);
    }
  }
  if (!execution) {
    if (inserted.reentryRefused || !checkOrphan) return null;
    const orphan = await olderActiveExecution(manager, workflowId, contactId);
    return orphan ? { orphan } : null;
  }
  const earlier = !inserted.execution;
  return {
    start: {
      execution,
      ...(earlier ? {} : { version: inserted.version }),
      input: {
        executionId: execution.id,
        projectId,
        workflowId,
        contactId,
        graph,
        context: execution.context,
        ...(input.eventName === undefined ? {} : { eventName: input.eventName }),
        ...(input.eventData === undefined ? {} : { eventData: input.eventData }),
        ...(delay ? { entryDelayed: true } : {}),
        ...(delay && earlier ? { entryDelayLeftMs: delayLeftMs } : {}),
      },
      names: { contactEmail: email, automationName: workflow.name, ...(delayLeftMs ? { startDelayMs: delayLeftMs } : {}) },
    },
  };
}

/**
 * Starts one execution of a workflow for a contact (enabled or not: triggers only pick enabled
 * workflows). Null when it is dropped, or when it started the workflow of the record an earlier
 * delivery of its trigger event wrote (see below). Dropped: the contact has an active execution of the workflow
 * (the index `workflow_executions_active_key` keeps one at most), or went through it before and
 * `allowReentry` is false, or the trigger event already started one (`workflow_executions_trigger_event_key`).
 * Starts of the same workflow and contact are serialised by a transaction lock, so concurrent
 * duplicates see each other. The Temporal workflow is `wf-exec/<executionId>`, with the graph as
 * it is now. An active execution older than a minute in the way whose Temporal workflow ended
 * without recording it is closed first (closeOrphanedExecution, asked outside the transaction).
 *
 * Without a trigger event (a start asked for through the API) the record and the workflow are
 * made together: the workflow starts inside the record's transaction, and finds no record if the
 * commit fails.
 *
 * With a trigger event the record commits first and the workflow starts after, so that no
 * database connection waits on Temporal's answer: a delivery starts many contacts' executions at
 * once. A start that Temporal refused deletes its record again (forgetUnstartedExecution). The
 * event's dispatch stays until its delivery succeeds; after a start that failed otherwise (its
 * answer lost, say), or a process that died between the commit and the start, the event's next
 * delivery starts the workflow of the record the event wrote while it is still as inserted, and
 * Temporal refuses a second workflow of one execution, so it runs once.
 * 404 for a workflow or contact not in the project; 503 when Temporal is unavailable.
 */
export async function startExecution(deps: EngineDeps, input: StartExecutionInput): Promise<WorkflowExecution | null> {
  const searchAttributes = deps.searchAttributes ?? (await searchAttributesReady(deps.temporal));
  for (let checkOrphan = true; ; checkOrphan = false) {
    let recorded: Recorded;
    if (input.triggerEventId === undefined) {
      recorded = await deps.dataSource.transaction(async (manager) => {
        const made = await recordStart(manager, input, checkOrphan);
        if (made && 'start' in made) await startWorkflow(deps, made.start, searchAttributes);
        return made;
      });
    } else {
      recorded = await deps.dataSource.transaction((manager) => recordStart(manager, input, checkOrphan));
      if (recorded && 'start' in recorded) {
        try {
          await startWorkflow(deps, recorded.start, searchAttributes);
        } catch (err) {
          if (err instanceof StartFailed && err.refused) await forgetUnstartedExecution(deps, recorded.start);
          throw err;
        }
      }
    }
    if (!recorded) return null;
    if ('start' in recorded) return recorded.start.version ? recorded.start.execution : null;
    if (!(await closeOrphanedExecution(deps, recorded.orphan))) return null;
  }
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
