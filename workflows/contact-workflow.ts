import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, patched, sleep, workflowInfo } from '@temporalio/workflow';
import { executionActivities, openEventInbox, runStep, type EventInbox, type ExecutionActivities } from './contact-steps';
import { entryDelay, entryStep, nextStep } from './graph';
import type { ExecutionInput, ExecutionOutcome, ExecutionRef, Graph, GraphStep } from './shared';

/** The input of `wf-exec/<executionId>` as Herald starts it. */
export interface ContactExecutionInput extends ExecutionInput {
  /**
   * The graph starts with a DELAY (graph.ts entryDelay) that the workflow's start delay waits
   * out: the record starts WAITING at that step and the workflow goes on from the step after it.
   */
  entryDelayed?: boolean;
}

/** The patch that lets an execution whose start delay was its entry DELAY go on from the next step. */
export const ENTRY_DELAY_PATCH = 'contact-workflow-entry-delay';

/** Steps an execution spends waiting: its record says WAITING during them. */
const WAITING_STEPS = new Set(['DELAY', 'WAIT_FOR_EVENT']);

/** The reason a step failed for good, as recorded on the execution. */
function reason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * `wf-exec/<executionId>`: walks one contact through a workflow graph, from its entry step
 * one step at a time, recording the current step, until a path ends (COMPLETED) or an EXIT
 * step (EXITED). A cancel (API or Temporal UI) ends it CANCELLED with nothing further sent;
 * a step failing for good ends it FAILED with the reason.
 */
export async function runWorkflowExecution(input: ContactExecutionInput): Promise<ExecutionOutcome> {
  const inbox = openEventInbox();
  const activities = executionActivities();
  const { finishExecution } = activities;
  const { graph, entryDelayed, ...execution } = input;
  let outcome: ExecutionOutcome;
  try {
    outcome = await walk(activities, graph, execution, inbox, entryDelayed === true);
    if (outcome !== 'STOPPED') await finishExecution(execution.executionId, outcome);
  } catch (err) {
    const cancelled = isCancellation(err);
    await CancellationScope.nonCancellable(() =>
      cancelled ? finishExecution(execution.executionId, 'CANCELLED') : finishExecution(execution.executionId, 'FAILED', reason(err)),
    );
    throw err;
  }
  return outcome;
}

/** Follows the graph from its entry step; each step is visited at most once (graphs are acyclic). */
async function walk(activities: ExecutionActivities, graph: Graph, execution: ExecutionRef, inbox: EventInbox, entryDelayed: boolean): Promise<ExecutionOutcome> {
  let step = entryStep(graph);
  if (!step) throw ApplicationFailure.create({ message: 'The workflow has no single entry step', type: 'InvalidGraph', nonRetryable: true });
  const visited = new Set<string>();
  const delay = entryDelayed ? entryDelay(graph) : undefined;
  if (delay && patched(ENTRY_DELAY_PATCH)) {
    visited.add(step.id);
    step = await afterEntryDelay(graph, delay);
  }
  while (step) {
    if (visited.has(step.id)) throw ApplicationFailure.create({ message: 'The workflow graph has a cycle', type: 'InvalidGraph', nonRetryable: true });
    visited.add(step.id);
    inbox.clear();
    const active = await activities.recordExecutionStep(execution.executionId, step.id, WAITING_STEPS.has(step.type) ? 'WAITING' : 'RUNNING');
    if (!active) return 'STOPPED';
    const result = await runStep(activities, step, execution, inbox);
    if (result === 'EXIT') return 'EXITED';
    step = nextStep(graph, step, result);
  }
  return 'COMPLETED';
}

/**
 * The step after the entry DELAY, once its wait is over. The start delay normally ends it. A
 * cancel starts the workflow before (the cancel then ends it); a signal (an event of the contact)
 * does not on the dev server, whose first workflow task then carries it, but a server that did
 * start it early would have the workflow wait out the rest itself. Events signalled during the
 * DELAY do not count for the step after it, as for a DELAY anywhere else.
 */
async function afterEntryDelay(graph: Graph, delay: { step: GraphStep; ms: number }): Promise<GraphStep | undefined> {
  const left = delay.ms - (Date.now() - workflowInfo().startTime.getTime());
  if (left > 0) await sleep(left);
  return nextStep(graph, delay.step);
}
