import type { EntityManager } from 'typeorm';
import type { Suppression, SuppressionReason, SuppressionType } from '../entities/suppression';
import { containsPattern } from '../db/like';

/** Filters of the suppression list. */
export interface SuppressionFilter {
  type?: SuppressionType;
  reason?: SuppressionReason;
  /** Substring of the value, lower-case. */
  search?: string;
}

/** A keyset position in the list: the exact `created_at` (as Postgres prints it) and the value. */
export interface SuppressionCursor {
  t: string;
  v: string;
}

/** A suppression row with the exact text of its `created_at`, for the next cursor. */
export interface SuppressionRow extends Suppression {
  createdAtText: string;
}

interface Row {
  project_id: string;
  value: string;
  type: SuppressionType;
  reason: SuppressionReason;
  created_at: Date;
  created_at_text: string;
}

const fromRow = (row: Row): SuppressionRow => ({
  projectId: row.project_id,
  value: row.value,
  type: row.type,
  reason: row.reason,
  createdAt: row.created_at,
  createdAtText: row.created_at_text,
});

const COLUMNS = 'project_id, value, type, reason, created_at, created_at::text AS created_at_text';

function filterSql(filter: SuppressionFilter, params: unknown[]): string {
  const clauses = ['project_id = $1'];
  if (filter.type) {
    params.push(filter.type);
    clauses.push(`type = $${params.length}`);
  }
  if (filter.reason) {
    params.push(filter.reason);
    clauses.push(`reason = $${params.length}`);
  }
  if (filter.search) {
    params.push(containsPattern(filter.search));
    clauses.push(`value LIKE $${params.length}`);
  }
  return clauses.join(' AND ');
}

/**
 * A page of the project's suppressions, newest first (ties by value), walking
 * `suppressions_project_created_idx (project_id, created_at DESC, value)` in its order.
 */
export async function listSuppressions(
  manager: EntityManager,
  projectId: string,
  filter: SuppressionFilter,
  limit: number,
  cursor: SuppressionCursor | undefined,
): Promise<SuppressionRow[]> {
  const params: unknown[] = [projectId];
  let where = filterSql(filter, params);
  if (cursor) {
    params.push(cursor.t, cursor.v);
    const t = `$${params.length - 1}::timestamptz`;
    const v = `$${params.length}::text`;
    where += ` AND created_at <= ${t} AND (created_at < ${t} OR value > ${v})`;
  }
  params.push(limit);
  const rows: Row[] = await manager.query(
    `SELECT ${COLUMNS} FROM suppressions WHERE ${where} ORDER BY created_at DESC, value ASC LIMIT $${params.length}`,
    params,
  );
  return rows.map(fromRow);
}

/** How many of the project's suppressions match the filter. */
export async function countSuppressions(manager: EntityManager, projectId: string, filter: SuppressionFilter): Promise<number> {
  const params: unknown[] = [projectId];
  const [{ count }] = await manager.query(`SELECT count(*)::int AS count FROM suppressions WHERE ${filterSql(filter, params)}`, params);
  return count;
}

/** One entry by its value, or undefined. */
export async function findSuppression(manager: EntityManager, projectId: string, value: string): Promise<SuppressionRow | undefined> {
  const rows: Row[] = await manager.query(`SELECT ${COLUMNS} FROM suppressions WHERE project_id = $1 AND value = $2`, [projectId, value]);
  return rows.length > 0 ? fromRow(rows[0]) : undefined;
}

/** Adds an entry unless the value is listed already; the new entry, or undefined when it was there. */
export async function insertSuppression(
  manager: EntityManager,
  projectId: string,
  entry: { type: SuppressionType; value: string; reason: SuppressionReason },
): Promise<SuppressionRow | undefined> {
  const rows: Row[] = await manager.query(
    `INSERT INTO suppressions (project_id, value, type, reason) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, value) DO NOTHING
     RETURNING ${COLUMNS}`,
    [projectId, entry.value, entry.type, entry.reason],
  );
  return rows.length > 0 ? fromRow(rows[0]) : undefined;
}

/** Removes an entry; whether it was there. */
export async function deleteSuppression(manager: EntityManager, projectId: string, value: string): Promise<boolean> {
  const [, deleted]: [unknown, number] = await manager.query('DELETE FROM suppressions WHERE project_id = $1 AND value = $2', [projectId, value]);
  return deleted > 0;
}
