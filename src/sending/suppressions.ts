import type { EntityManager } from 'typeorm';
import type { SuppressionReason } from '../entities/suppression';

/** The domain part of an address, lower-case. */
export const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/**
 * SQL that is true when the address in `column` (lower-case) is suppressed in project
 * `projectColumn`: listed itself, or its domain listed. Uses the primary key twice.
 */
export const suppressedSql = (projectColumn: string, column: string) =>
  `EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = ${projectColumn}
            AND s.value IN (${column}, split_part(${column}, '@', 2)))`;

/** Whether the project never sends to this address: it, or its whole domain, is on the suppression list. */
export async function isSuppressed(manager: EntityManager, projectId: string, email: string): Promise<boolean> {
  const address = email.toLowerCase();
  const rows = await manager.query('SELECT 1 FROM suppressions WHERE project_id = $1 AND value IN ($2, $3) LIMIT 1', [projectId, address, domainOf(address)]);
  return rows.length > 0;
}

/** Adds an address to the project's suppression list; the first reason recorded stays. */
export async function suppress(manager: EntityManager, projectId: string, email: string, reason: SuppressionReason): Promise<void> {
  await manager.query(
    `INSERT INTO suppressions (project_id, value, type, reason) VALUES ($1, $2, 'EMAIL', $3) ON CONFLICT (project_id, value) DO NOTHING`,
    [projectId, email.toLowerCase(), reason],
  );
}
