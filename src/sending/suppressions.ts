import type { EntityManager } from 'typeorm';
import type { SuppressionReason } from '../entities/suppression';

/**
 * SQL for the domain of the address in `column`: what follows its last `@` (a quoted local
 * part may hold one, as in `"a@b"@example.com`). The one definition of an address's domain
 * that every suppression check uses.
 */
const domainSql = (column: string) => `substring(${column} from '@([^@]*)$')`;

/**
 * SQL that is true when the address in `column` (lower-case) is suppressed in project
 * `projectColumn`: listed itself, or its domain listed. Uses the primary key twice.
 */
export const suppressedSql = (projectColumn: string, column: string) =>
  `EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = ${projectColumn}
            AND s.value IN (${column}, ${domainSql(column)}))`;

/** Whether the project never sends to this address: it, or its whole domain, is on the suppression list. */
export async function isSuppressed(manager: EntityManager, projectId: string, email: string): Promise<boolean> {
  const [row]: { suppressed: boolean }[] = await manager.query(`SELECT ${suppressedSql('$1::uuid', '$2::text')} AS suppressed`, [projectId, email.toLowerCase()]);
  return row.suppressed;
}

/** Adds an address to the project's suppression list; the first reason recorded stays. */
export async function suppress(manager: EntityManager, projectId: string, email: string, reason: SuppressionReason): Promise<void> {
  await manager.query(
    `INSERT INTO suppressions (project_id, value, type, reason) VALUES ($1, $2, 'EMAIL', $3) ON CONFLICT (project_id, value) DO NOTHING`,
    [projectId, email.toLowerCase(), reason],
  );
}
