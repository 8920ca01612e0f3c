import type { DataSource } from 'typeorm';
import { GroupWriter } from '../db/group-writer';
import type { ExecutionStatus } from '../entities/workflow';
import type { Delivery } from '../sending/delivery';
import { workflowEmailId } from './email-ids';
import { ExecutionNotFoundError } from './errors';
import { appendSkip, currentStepId, endManyExecutions, executionExists, moveManyToStep } from './executions-queries';

/** The statuses of an execution that is still under way (the ones the active-execution index covers). */
export const ACTIVE_STATUSES = ['RUNNING', 'WAITING'] as const;
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type FinalStatus = Exclude<ExecutionStatus, ActiveStatus>;

/** Why a SEND_EMAIL step sent nothing, as recorded in the execution's `context.skipped`. */
export type SkipReason = 'suppressed' | 'unsubscribed' | 'contact_deleted' | 'billing_limit';

/** One item's result, or the error that refused it. */
type Outcome<R> = { value: R } | { error: unknown };

/** The item's result, or its error thrown. */
function unwrap<R>(outcome: Outcome<R>): R {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * Writes a round in one statement; when that statement fails, writes each of its items alone, so
 * that an item the database refuses fails its own caller only, not every execution of its group.
 */
async function writeRound<T, R>(round: T[], write: (items: T[]) => Promise<R[]>): Promise<Outcome<R>[]> {
  try {
    return (await write(round)).map((value) => ({ value }));
  } catch (err) {
    if (round.length === 1) return [{ error: err }];
    return Promise.all(round.map((item) => write([item]).then(([value]) => ({ value }), (error: unknown) => ({ error }))));
  }
}

/**
 * The writes of one group, split so that each statement names an execution once (an attempt
 * and its retry may meet in one group, and are written in the order they came): answers one
 * outcome per item, in order.
 */
async function distinctRounds<T extends { executionId: string }, R>(items: T[], write: (round: T[]) => Promise<R[]>): Promise<Outcome<R>[]> {
  const results: Outcome<R>[] = new Array(items.length);
  let left = items.map((item, index) => ({ item, index }));
  while (left.length > 0) {
    const seen = new Set<string>();
    const round = left.filter(({ item }) => !seen.has(item.executionId) && seen.add(item.executionId));
    left = left.filter((entry) => !round.includes(entry));
    const written = await writeRound(round.map(({ item }) => item), write);
    round.forEach(({ index }, i) => (results[index] = written[i]));
  }
  return results;
}

/**
 * The execution records as their Temporal workflows move them: the current step, skips,
 * and the final status. Every write applies only to an execution still under way, so a
 * retried or late write never reopens one that ended. The moves and ends of executions that
 * run at the same time share statements (GroupWriter): one UPDATE, one commit for all of them.
 */
export class ExecutionRecords {
  private readonly moves = new GroupWriter((moves: { executionId: string; stepId: string; status: ActiveStatus }[]) =>
    distinctRounds(moves, (round) => moveManyToStep(this.dataSource.manager, round)),
  );
  private readonly ends = new GroupWriter((ends: { executionId: string; status: FinalStatus; error: string | null; stepId: string | null }[]) =>
    distinctRounds(ends, (round) => endManyExecutions(this.dataSource.manager, round)),
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly delivery: Delivery,
  ) {}

  /** Moves an execution under way to a step; false when it already ended. Throws ExecutionNotFoundError when it does not exist. */
  async recordStep(executionId: string, stepId: string, status: ActiveStatus): Promise<boolean> {
    if (unwrap(await this.moves.add({ executionId, stepId, status }))) return true;
    if (!(await executionExists(this.dataSource.manager, executionId))) throw new ExecutionNotFoundError(executionId);
    return false;
  }

  /** Appends a skipped step to `context.skipped`, once per step. */
  async recordSkip(executionId: string, stepId: string, reason: SkipReason): Promise<void> {
    await appendSkip(this.dataSource.manager, executionId, { stepId, reason, at: new Date().toISOString() });
  }

  /**
   * Ends an execution under way with its final status (and the reason of a failure), at
   * `stepId` when given (the EXIT step it ended at); an execution that already ended keeps its
   * status. A FAILED or CANCELLED execution leaves nothing to send: the email of the step it
   * stopped at is marked FAILED if still queued. True when this call ended it; an end at a step
   * that found no execution throws ExecutionNotFoundError (its start may not have committed yet).
   */
  async finish(executionId: string, status: FinalStatus, error?: string | null, stepId?: string | null): Promise<boolean> {
    // Postgres text holds no NUL character; a failure's message (a webhook's answer) may.
    const ended = unwrap(await this.ends.add({ executionId, status, error: error?.replace(/\u0000/g, '').slice(0, 1000) ?? null, stepId: stepId ?? null }));
    if (status === 'FAILED' || status === 'CANCELLED') {
      await this.abandonStepEmail(executionId, status === 'CANCELLED' ? 'The workflow execution was cancelled' : `The workflow execution failed: ${error ?? ''}`);
    }
    if (!ended && stepId && !(await executionExists(this.dataSource.manager, executionId))) throw new ExecutionNotFoundError(executionId);
    return ended;
  }

  /** Marks the still queued email of the execution's current step FAILED, so that no retry sends it. */
  async abandonStepEmail(executionId: string, reason: string): Promise<void> {
    const stepId = await currentStepId(this.dataSource.manager, executionId);
    if (stepId) await this.delivery.fail(workflowEmailId(executionId, stepId), reason);
  }
}
