import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, patched, sleep, workflowInfo } from '@temporalio/workflow';
import { CURRENT_ACTIVITIES, executionActivities, openEventInbox, recordAndRunInstantStep, runStep, type EventInbox, type ExecutionActivities, type StepResult } from './contact-steps';
import { entryDelay, entryStep, nextStep } from './graph';
import type { ExecutionInput, ExecutionOutcome, ExecutionRef, Graph, GraphStep, StepEnd } from './shared';

/** The input of `wf-exec/<executionId>` as Herald starts it. */
export interface ContactExecutionInput extends ExecutionInput {
  /**
   * The graph starts with a DELAY (graph.ts entryDelay) that the workflow's start delay waits
   * out: the record starts WAITING at that step and the workflow goes on from the step after it.
   */
  entryDelayed?: boolean;
  /**
   * With entryDelayed: what was left of the entry DELAY when this workflow started, when the
   * DELAY began before (a record written by an earlier delivery of its trigger event, whose
   * workflow had not started); the whole DELAY when unset.
   */
  entryDelayLeftMs?: number;
}

/** The patch that lets an execution whose start delay was its entry DELAY go on from the next step. */
export const ENTRY_DELAY_PATCH = 'contact-workflow-entry-delay';

/**
 * The patch that has an execution started with `entryDelayLeftMs` wait only that: a worker from
 * before it waited the whole DELAY, and a history it began replays that way.
 */
export const ENTRY_DELAY_LEFT_PATCH = 'contact-workflow-entry-delay-left';

/** Steps an execution spends waiting: its record says WAITING during them. */
const WAITING_STEPS = new Set(['DELAY', 'WAIT_FOR_EVENT']);

/** Steps that run at once: recorded and run in one call (recordAndRunStep) when the execution records steps with their work. */
const INSTANT_STEPS = new Set(['SEND_EMAIL', 'CONDITION', 'UPDATE_CONTACT']);

/** How one version of the execution workflow walks the graph. */
interface ExecutionWay {
  activities: ExecutionActivities;
  /** Whether an instant step is recorded with its work, and an EXIT step with the execution's end, in one call each. */
  recordsWithWork: boolean;
  /** Whether an entry DELAY waited out by the start delay is passed over (asked once, when the walk begins). */
  skipsEntryDelay: () => boolean;
}

/**
 * Where a walk ended: its outcome, the EXIT step it ended at when that step is recorded with the
 * end, and whether the last step's call already wrote the end (`recorded`).
 */
interface WalkEnd {
  outcome: ExecutionOutcome;
  exitStepId?: string;
  recorded?: boolean;
}

/** The reason a step failed for good, as recorded on the execution. */
function reason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * `wf-exec/<executionId>` as Herald starts it now: walks one contact through a workflow graph,
 * from its entry step one step at a time, recording the current step, until a path ends
 * (COMPLETED) or an EXIT step (EXITED). A cancel (API or Temporal UI) ends it CANCELLED with
 * nothing further sent; a step failing for good ends it FAILED with the reason.
 *
 * It takes every path that runWorkflowExecution takes behind its patches, without asking for
 * them (each patch is two history events and a visibility write per execution), and records a
 * SEND_EMAIL, CONDITION or UPDATE_CONTACT step with its work and an EXIT step with the end, in one
 * local activity each; a SEND_EMAIL or UPDATE_CONTACT step whose plain transition ends the
 * execution (an EXIT step, or none) writes that end in its own call. A `DELAY -> SEND_EMAIL ->
 * EXIT` execution makes one call instead of four and its history holds 6 events instead of 13.
 * Its histories recorded before that last change (the end a call of its own) replay unchanged:
 * their step calls answer without ENDED, and the walk goes on to the end's call as it did.
 */
export async function runWorkflowExecutionV2(input: ContactExecutionInput): Promise<ExecutionOutcome> {
  return runExecution(input, () => ({ activities: CURRENT_ACTIVITIES, recordsWithWork: true, skipsEntryDelay: () => true }));
}

/**
 * `wf-exec/<executionId>` as executions started before runWorkflowExecutionV2 run it: the same
 * walk, each step recorded by a call of its own, with the paths its patches chose when it started.
 * Kept unchanged until none of them is left.
 */
export async function runWorkflowExecution(input: ContactExecutionInput): Promise<ExecutionOutcome> {
  return runExecution(input, () => ({ activities: executionActivities(), recordsWithWork: false, skipsEntryDelay: () => patched(ENTRY_DELAY_PATCH) }));
}

/** Runs one execution the way `chooseWay` picks once the signal handler is set, recording how it ended. */
async function runExecution(input: ContactExecutionInput, chooseWay: () => ExecutionWay): Promise<ExecutionOutcome> {
  const inbox = openEventInbox();
  const way = chooseWay();
  const { activities } = way;
  const { finishExecution } = activities;
  const { graph, entryDelayed, entryDelayLeftMs, ...execution } = input;
  let outcome: ExecutionOutcome;
  try {
    const end = await walk(way, graph, execution, inbox, entryDelayed === true ? { leftMs: entryDelayLeftMs } : undefined);
    outcome = end.outcome;
    if (end.recorded) {
      // The last step's call wrote the end.
    } else if (end.exitStepId !== undefined) {
      // An EXIT step recorded with the end: STOPPED when the record had already ended.
      if (!(await finishExecution(execution.executionId, 'EXITED', null, end.exitStepId))) outcome = 'STOPPED';
    } else if (outcome !== 'STOPPED') {
      await finishExecution(execution.executionId, outcome);
    }
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
async function walk(way: ExecutionWay, graph: Graph, execution: ExecutionRef, inbox: EventInbox, entryDelayed?: { leftMs?: number }): Promise<WalkEnd> {
  const { activities, recordsWithWork } = way;
  let step = entryStep(graph);
  if (!step) throw ApplicationFailure.create({ message: 'The workflow has no single entry step', type: 'InvalidGraph', nonRetryable: true });
  const visited = new Set<string>();
  const delay = entryDelayed ? entryDelay(graph) : undefined;
  if (delay && way.skipsEntryDelay()) {
    visited.add(step.id);
    const leftMs = entryDelayed?.leftMs;
    step = await afterEntryDelay(graph, delay, leftMs !== undefined && patched(ENTRY_DELAY_LEFT_PATCH) ? leftMs : delay.ms);
  }
  while (step) {
    if (visited.has(step.id)) throw ApplicationFailure.create({ message: 'The workflow graph has a cycle', type: 'InvalidGraph', nonRetryable: true });
    visited.add(step.id);
    inbox.clear();
    if (recordsWithWork && step.type === 'EXIT') return { outcome: 'EXITED', exitStepId: step.id };
    let result: StepResult;
    if (recordsWithWork && INSTANT_STEPS.has(step.type)) {
      const end = endAfter(graph, step);
      const ran = await recordAndRunInstantStep(activities, step, execution, inbox, end);
      if (ran === 'STOPPED') return { outcome: 'STOPPED' };
      // ENDED answers a call that was given an end.
      if (ran === 'ENDED') return { outcome: end?.status ?? 'COMPLETED', recorded: true };
      result = ran ?? undefined;
    } else {
      const active = await activities.recordExecutionStep(execution.executionId, step.id, WAITING_STEPS.has(step.type) ? 'WAITING' : 'RUNNING');
      if (!active) return { outcome: 'STOPPED' };
      result = await runStep(activities, step, execution, inbox);
    }
    if (result === 'EXIT') return { outcome: 'EXITED' };
    step = nextStep(graph, step, result);
  }
  return { outcome: 'COMPLETED' };
}

/**
 * The end a SEND_EMAIL or UPDATE_CONTACT step's call writes after its work: EXITED when its
 * plain transition leads to an EXIT step, COMPLETED when it has none; undefined when the walk
 * goes on (and for CONDITION, whose next step depends on its answer).
 */
function endAfter(graph: Graph, step: GraphStep): StepEnd | undefined {
  if (step.type !== 'SEND_EMAIL' && step.type !== 'UPDATE_CONTACT') return undefined;
  const next = nextStep(graph, step);
  if (!next) return { status: 'COMPLETED' };
  return next.type === 'EXIT' ? { status: 'EXITED', stepId: next.id } : undefined;
}

/**
 * The step after the entry DELAY, once its wait (`msAtStart` from the workflow's start) is over. The start delay normally ends it. A
 * cancel starts the workflow before (the cancel then ends it); a signal (an event of the contact)
 * does not on the dev server, whose first workflow task then carries it, but a server that did
 * start it early would have the workflow wait out the rest itself. Events signalled during the
 * DELAY do not count for the step after it, as for a DELAY anywhere else.
 */
async function afterEntryDelay(graph: Graph, delay: { step: GraphStep }, msAtStart: number): Promise<GraphStep | undefined> {
  const left = msAtStart - (Date.now() - workflowInfo().startTime.getTime());
  if (left > 0) await sleep(left);
  return nextStep(graph, delay.step);
}
