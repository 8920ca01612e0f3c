import type { GraphStep as EngineStep, GraphTransition } from '../../workflows/shared';
import type { StepType } from '../entities/workflow';
import type { FieldError } from '../http/errors';

/**
 * The rules of a workflow graph (CONTRACT sections 10 and 14), over plain steps and
 * transitions: what a new transition may not do, and what keeps a graph from running.
 */

export type GraphStep = Pick<EngineStep, 'id' | 'type' | 'name'>;
export type { GraphTransition };

/** Steps whose outgoing transitions carry a `branch`: required from CONDITION, optional from WAIT_FOR_EVENT. */
const BRANCHING: readonly StepType[] = ['CONDITION', 'WAIT_FOR_EVENT'];

/** Whether `target` can be reached from `start` by following transitions. */
function reaches(transitions: GraphTransition[], start: string, target: string): boolean {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === target) return true;
    for (const next of transitions) {
      if (next.fromStepId === at && !seen.has(next.toStepId)) {
        seen.add(next.toStepId);
        queue.push(next.toStepId);
      }
    }
  }
  return false;
}

/** Why `candidate` may not be added to the graph; empty when it may. */
export function transitionProblems(steps: GraphStep[], transitions: GraphTransition[], candidate: GraphTransition): FieldError[] {
  const problem = (field: string, code: string, message: string): FieldError[] => [{ field, code, message }];
  const from = steps.find((step) => step.id === candidate.fromStepId);
  const to = steps.find((step) => step.id === candidate.toStepId);
  if (!from || !to) {
    return [
      ...(from ? [] : problem('fromStepId', 'not_found', 'fromStepId is not a step of this workflow')),
      ...(to ? [] : problem('toStepId', 'not_found', 'toStepId is not a step of this workflow')),
    ];
  }
  if (from.id === to.id) return problem('toStepId', 'self_loop', 'A transition cannot lead from a step to itself');
  if (from.type === 'EXIT') return problem('fromStepId', 'exit_step', 'An EXIT step ends the execution; no transition leaves it');
  const { branch } = candidate;
  if (branch !== null && !BRANCHING.includes(from.type)) {
    return problem('branch', 'branch_not_allowed', `branch is only for transitions from CONDITION and WAIT_FOR_EVENT steps, not ${from.type}`);
  }
  if (branch === null && from.type === 'CONDITION') return problem('branch', 'required', 'A transition from a CONDITION step needs branch yes or no');
  const outgoing = transitions.filter((transition) => transition.fromStepId === from.id);
  if (outgoing.some((transition) => transition.branch === branch)) {
    return branch
      ? problem('branch', 'duplicate_transition', `Step "${from.name}" already has a "${branch}" transition`)
      : problem('fromStepId', 'duplicate_transition', `Step "${from.name}" already has a next step; a ${from.type} step has one`);
  }
  if (reaches(transitions, to.id, from.id)) return problem('toStepId', 'cycle', `The transition would close a cycle: "${from.name}" is reached from "${to.name}"`);
  return [];
}

/** The steps that no transition enters. */
export function entrySteps(steps: GraphStep[], transitions: GraphTransition[]): GraphStep[] {
  const entered = new Set(transitions.map((transition) => transition.toStepId));
  return steps.filter((step) => !entered.has(step.id));
}

/** Whether the transitions leave a cycle (Kahn's algorithm: some step never loses its last incoming edge). */
function hasCycle(steps: GraphStep[], transitions: GraphTransition[]): boolean {
  const incoming = new Map(steps.map((step) => [step.id, 0]));
  for (const transition of transitions) incoming.set(transition.toStepId, (incoming.get(transition.toStepId) ?? 0) + 1);
  const ready = [...incoming].filter(([, count]) => count === 0).map(([id]) => id);
  let visited = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    visited += 1;
    for (const transition of transitions) {
      if (transition.fromStepId !== id) continue;
      const left = incoming.get(transition.toStepId)! - 1;
      incoming.set(transition.toStepId, left);
      if (left === 0) ready.push(transition.toStepId);
    }
  }
  return visited < incoming.size;
}

/**
 * Why the graph cannot run: no steps, zero or several entry steps, a cycle, or a CONDITION
 * step without both its `yes` and `no` transitions. Empty when it can.
 */
export function graphProblems(steps: GraphStep[], transitions: GraphTransition[]): FieldError[] {
  if (steps.length === 0) return [{ field: 'steps', code: 'no_steps', message: 'The workflow has no steps' }];
  const problems: FieldError[] = [];
  const entries = entrySteps(steps, transitions);
  if (entries.length !== 1) {
    const names = entries.map((step) => `"${step.name}"`).join(', ');
    problems.push({
      field: 'steps',
      code: 'entry_step',
      message:
        entries.length === 0
          ? 'The workflow has no entry step (a step without an incoming transition)'
          : `The workflow has ${entries.length} entry steps (without an incoming transition): ${names}; connect them so that one remains`,
    });
  }
  if (hasCycle(steps, transitions)) problems.push({ field: 'transitions', code: 'cycle', message: 'The transitions form a cycle' });
  for (const step of steps.filter((candidate) => candidate.type === 'CONDITION')) {
    for (const branch of ['yes', 'no'] as const) {
      if (!transitions.some((transition) => transition.fromStepId === step.id && transition.branch === branch)) {
        problems.push({ field: `steps.${step.id}`, code: 'missing_branch', message: `CONDITION step "${step.name}" has no "${branch}" transition` });
      }
    }
  }
  return problems;
}

/**
 * The transitions that replace `stepId` when it is spliced out: each incoming transition, with
 * its branch, now leads to the step's next step. Null when the step leads to several next steps,
 * which one incoming branch cannot lead to at once.
 */
export function splicedTransitions(stepId: string, transitions: GraphTransition[]): GraphTransition[] | null {
  const incoming = transitions.filter((transition) => transition.toStepId === stepId);
  const targets = new Set(transitions.filter((transition) => transition.fromStepId === stepId).map((transition) => transition.toStepId));
  if (incoming.length === 0 || targets.size === 0) return [];
  if (targets.size > 1) return null;
  const [target] = targets;
  return incoming.map((transition) => ({ fromStepId: transition.fromStepId, toStepId: target, branch: transition.branch }));
}
