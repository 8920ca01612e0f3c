import type { DataSource, EntityManager } from 'typeorm';
import type { ExecutionStatus } from '../entities/workflow';
import type { Delivery } from '../sending/delivery';
import { workflowEmailId } from './email-ids';
import { ExecutionNotFoundError } from './errors';

/** The statuses of an execution that is still under way (the ones the active-execution index covers). */
export const ACTIVE_STATUSES = ['RUNNING', 'WAITING'] as const;
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type FinalStatus = Exclude<ExecutionStatus, ActiveStatus>;

/** Why a SEND_EMAIL step sent nothing, as recorded in the execution's `context.skipped`. */
export type SkipReason = 'suppressed' | 'unsubscribed' | 'contact_deleted' | 'billing_limit';

/** Whether an execution is still RUNNING or WAITING (false when it ended or does not exist). */
export async function isExecutionActive(manager: EntityManager, executionId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM workflow_executions WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`, [executionId]);
  return rows.length > 0;
}

/**
 * The execution records as their Temporal workflows move them: the current step, skips,
 * and the final status. Every write applies only to an execution still under way, so a
 * retried or late write never reopens one that ended.
 */
export class ExecutionRecords {
  constructor(
    private readonly dataSource: DataSource,
    private readonly delivery: Delivery,
  ) {}

  /** Moves an execution under way to a step; false when it already ended. Throws ExecutionNotFoundError when it does not exist. */
  async recordStep(executionId: string, stepId: string, status: ActiveStatus): Promise<boolean> {
    const [rows]: [unknown[]] = await this.dataSource.query(
      `UPDATE workflow_executions SET current_step_id = $2, status = $3
        WHERE id = $1 AND status IN ('RUNNING', 'WAITING') RETURNING id`,
      [executionId, stepId, status],
    );
    if (rows.length > 0) return true;
    const exists: unknown[] = await this.dataSource.query('SELECT 1 FROM workflow_executions WHERE id = $1', [executionId]);
    if (exists.length === 0) throw new ExecutionNotFoundError(executionId);
    return false;
  }

  /** Appends a skipped step to `context.skipped`, once per step. */
  async recordSkip(executionId: string, stepId: string, reason: SkipReason): Promise<void> {
    await this.dataSource.query(
      `UPDATE workflow_executions
          SET context = jsonb_set(context, '{skipped}', coalesce(context->'skipped', '[]'::jsonb) || $2::jsonb)
        WHERE id = $1 AND NOT coalesce(context->'skipped', '[]'::jsonb) @> $3::jsonb`,
      [executionId, JSON.stringify([{ stepId, reason, at: new Date().toISOString() }]), JSON.stringify([{ stepId }])],
    );
  }

  /**
   * Ends an execution under way with its final status (and the reason of a failure); an
   * execution that already ended keeps its status. A FAILED or CANCELLED execution leaves
   * nothing to send: the email of the step it stopped at is marked FAILED if still queued.
   */
  async finish(executionId: string, status: FinalStatus, error?: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE workflow_executions SET status = $2, error = $3, completed_at = now()
        WHERE id = $1 AND status IN ('RUNNING', 'WAITING')`,
      [executionId, status, error?.slice(0, 1000) ?? null],
    );
    if (status === 'FAILED' || status === 'CANCELLED') {
      await this.abandonStepEmail(executionId, status === 'CANCELLED' ? 'The workflow execution was cancelled' : `The workflow execution failed: ${error ?? ''}`);
    }
  }

  /** Marks the still queued email of the execution's current step FAILED, so that no retry sends it. */
  async abandonStepEmail(executionId: string, reason: string): Promise<void> {
    const [row]: { current_step_id: string | null }[] = await this.dataSource.query('SELECT current_step_id FROM workflow_executions WHERE id = $1', [
      executionId,
    ]);
    if (row?.current_step_id) await this.delivery.fail(workflowEmailId(executionId, row.current_step_id), reason);
  }
}
