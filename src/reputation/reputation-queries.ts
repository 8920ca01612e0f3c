import type { EntityManager } from 'typeorm';
import { ProjectSuspension } from '../entities/project-suspension';
import { REPUTATION_WINDOW_DAYS, type WindowCounts } from './thresholds';

/** A project's standing and the counts of its current rate window. */
export interface ProjectWindow extends WindowCounts {
  disabled: boolean;
  disabledReason: string | null;
  /** Start of the window: 7 days ago, or `reputation_since` when later. */
  since: Date;
  /** Whether the window starts at `reputation_since` (a lifted suspension) rather than 7 days ago. */
  restarted: boolean;
}

/**
 * The project's flags and the counts of its emails sent within the window: sent, permanently
 * bounced, complained. One range scan of `emails_project_sent_idx`. Undefined when there is
 * no such project.
 */
export async function projectWindow(manager: EntityManager, projectId: string): Promise<ProjectWindow | undefined> {
  const rows: {
    disabled: boolean;
    disabled_reason: string | null;
    since: Date;
    restarted: boolean;
    sent: number;
    bounced: number;
    complained: number;
  }[] = await manager.query(
    `SELECT p.disabled, p.disabled_reason, w.since, w.since = p.reputation_since AS restarted, c.sent, c.bounced, c.complained
       FROM projects p
      CROSS JOIN LATERAL (SELECT greatest(now() - make_interval(days => $2), p.reputation_since) AS since) w
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS sent, count(e.bounced_at)::int AS bounced, count(e.complained_at)::int AS complained
          FROM emails e
         WHERE e.project_id = p.id AND e.sent_at >= w.since
      ) c
      WHERE p.id = $1`,
    [projectId, REPUTATION_WINDOW_DAYS],
  );
  const [row] = rows;
  if (!row) return undefined;
  return {
    disabled: row.disabled,
    disabledReason: row.disabled_reason,
    since: row.since,
    restarted: row.restarted === true,
    sent: row.sent,
    bounced: row.bounced,
    complained: row.complained,
  };
}

/**
 * SQL for why none of the project in `projectColumn` may send: the reason it was disabled
 * (suspended), `disabled` when none was given; null while it may send. The one definition that
 * every check before a send uses.
 */
export const disabledReasonSql = (projectColumn: string) =>
  `(SELECT CASE WHEN p.disabled THEN coalesce(p.disabled_reason, 'disabled') END FROM projects p WHERE p.id = ${projectColumn})`;

/** Why none of the project's email may go out: the reason it was disabled (suspended); undefined while it may send. */
export async function disabledReason(manager: EntityManager, projectId: string): Promise<string | undefined> {
  const [row]: { reason: string | null }[] = await manager.query(`SELECT ${disabledReasonSql('$1')} AS reason`, [projectId]);
  return row.reason ?? undefined;
}

/** Locks the project row for the rest of the transaction; whether it is disabled (undefined when it does not exist). */
export async function lockProject(manager: EntityManager, projectId: string): Promise<boolean | undefined> {
  const rows: { disabled: boolean }[] = await manager.query('SELECT disabled FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
  return rows[0]?.disabled;
}

/** Disables the project with the reason and records the suspension with the counts behind it. */
export async function suspendProject(manager: EntityManager, projectId: string, reason: string, counts: WindowCounts, rates: { bounceRate: number; complaintRate: number }): Promise<ProjectSuspension> {
  await manager.query('UPDATE projects SET disabled = true, disabled_reason = $2, updated_at = now() WHERE id = $1', [projectId, reason]);
  return manager.save(manager.create(ProjectSuspension, { projectId, reason, ...counts, ...rates, liftedAt: null, liftedBy: null }));
}

/** Re-enables the project, starts its rate window afresh, and marks its open suspensions lifted by the user (null: from the command line). */
export async function liftSuspension(manager: EntityManager, projectId: string, userId: string | null): Promise<void> {
  await manager.query(
    'UPDATE projects SET disabled = false, disabled_reason = NULL, reputation_since = now(), updated_at = now() WHERE id = $1',
    [projectId],
  );
  await manager.query(
    'UPDATE project_suspensions SET lifted_at = now(), lifted_by = $2 WHERE project_id = $1 AND lifted_at IS NULL',
    [projectId, userId],
  );
}

/** The project's latest suspensions, newest first. */
export function recentSuspensions(manager: EntityManager, projectId: string, limit: number): Promise<ProjectSuspension[]> {
  return manager.find(ProjectSuspension, { where: { projectId }, order: { createdAt: 'DESC' }, take: limit });
}
