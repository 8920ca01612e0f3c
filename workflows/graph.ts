import type { Branch, StepType } from '../src/entities/workflow';

/** One step of the graph an execution follows, as it was when the execution started. */
export interface GraphStep {
  id: string;
  type: StepType;
  name: string;
  config: Record<string, unknown>;
}

/** An edge of that graph; `branch` labels the CONDITION and WAIT_FOR_EVENT outcomes. */
export interface GraphTransition {
  fromStepId: string;
  toStepId: string;
  branch: Branch | null;
}

/** A workflow's steps and transitions, handed to an execution when it starts. */
export interface Graph {
  steps: GraphStep[];
  transitions: GraphTransition[];
}

/** The units a DELAY amount or a WAIT_FOR_EVENT timeout is counted in, with their length in seconds. */
export const DURATION_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400, weeks: 604_800 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

/** A DELAY step's config, and a WAIT_FOR_EVENT step's `timeout`. */
export interface Duration {
  amount: number;
  unit: DurationUnit;
}

/** The milliseconds of a duration; undefined when it is not a non-negative amount of a known unit. */
export function durationMs(duration: unknown): number | undefined {
  if (typeof duration !== 'object' || duration === null) return undefined;
  const { amount, unit } = duration as Partial<Duration>;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return undefined;
  if (typeof unit !== 'string' || !Object.hasOwn(DURATION_UNITS, unit)) return undefined;
  return amount * DURATION_UNITS[unit] * 1000;
}

/** The step with no incoming transition; undefined unless there is exactly one. */
export function entryStep(graph: Graph): GraphStep | undefined {
  const targets = new Set(graph.transitions.map((transition) => transition.toStepId));
  const entries = graph.steps.filter((step) => !targets.has(step.id));
  return entries.length === 1 ? entries[0] : undefined;
}

/**
 * The step after `from`. A CONDITION step follows the transition of its branch only. A
 * WAIT_FOR_EVENT step follows the transition of its branch, else its unlabelled one (its
 * branches are optional). Other steps follow their unlabelled transition. Undefined: the
 * execution has reached the end of its path.
 */
export function nextStep(graph: Graph, from: GraphStep, branch?: Branch): GraphStep | undefined {
  const outgoing = graph.transitions.filter((transition) => transition.fromStepId === from.id);
  const labelled = branch === undefined ? undefined : outgoing.find((transition) => transition.branch === branch);
  const plain = from.type === 'CONDITION' ? undefined : outgoing.find((transition) => transition.branch === null);
  const transition = labelled ?? plain;
  return transition && graph.steps.find((step) => step.id === transition.toStepId);
}

/** The Temporal workflow id of an execution. */
export function executionWorkflowId(executionId: string): string {
  return `wf-exec/${executionId}`;
}
