import type { Branch } from '../src/entities/workflow';
import { DURATION_UNITS, type Duration, type Graph, type GraphStep } from './shared';

/** The milliseconds of a duration; undefined when it is not a non-negative amount of a known unit. */
export function durationMs(duration: unknown): number | undefined {
  if (typeof duration !== 'object' || duration === null) return undefined;
  const { amount, unit } = duration as Partial<Duration>;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return undefined;
  if (typeof unit !== 'string' || !Object.hasOwn(DURATION_UNITS, unit)) return undefined;
  return amount * DURATION_UNITS[unit] * 1000;
}

/** The event names the graph's WAIT_FOR_EVENT steps wait for, each once: the only events an execution of it needs signalled. */
export function awaitedEvents(graph: Graph): string[] {
  const names = graph.steps.flatMap((step) => (step.type === 'WAIT_FOR_EVENT' && typeof step.config.eventName === 'string' ? [step.config.eventName] : []));
  return [...new Set(names)];
}

/** The step with no incoming transition; undefined unless there is exactly one. */
export function entryStep(graph: Graph): GraphStep | undefined {
  const targets = new Set(graph.transitions.map((transition) => transition.toStepId));
  const entries = graph.steps.filter((step) => !targets.has(step.id));
  return entries.length === 1 ? entries[0] : undefined;
}

/**
 * The entry step and its wait, when the graph starts with a DELAY of more than nothing: Herald
 * starts such an execution with that wait as the Temporal workflow's start delay.
 */
export function entryDelay(graph: Graph): { step: GraphStep; ms: number } | undefined {
  const step = entryStep(graph);
  const ms = step?.type === 'DELAY' ? durationMs(step.config) : undefined;
  return step && ms !== undefined && ms > 0 ? { step, ms } : undefined;
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
