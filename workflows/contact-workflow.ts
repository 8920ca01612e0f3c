import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { executionActivities, openEventInbox, runStep, type EventInbox, type ExecutionActivities } from './contact-steps';
import { entryStep, nextStep } from './graph';
import type { ExecutionInput, ExecutionOutcome, ExecutionRef, Graph } from './shared';

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
export async function runWorkflowExecution(input: ExecutionInput): Promise<ExecutionOutcome> {
  const inbox = openEventInbox();
  const activities = executionActivities();
  const { finishExecution } = activities;
  const { graph, ...execution } = input;
  let outcome: ExecutionOutcome;
  try {
    outcome = await walk(activities, graph, execution, inbox);
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
async function walk(activities: ExecutionActivities, graph: Graph, execution: ExecutionRef, inbox: EventInbox): Promise<ExecutionOutcome> {
  let step = entryStep(graph);
  if (!step) throw ApplicationFailure.create({ message: 'The workflow has no single entry step', type: 'InvalidGraph', nonRetryable: true });
  const visited = new Set<string>();
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
