import type { EntityManager } from 'typeorm';
import type { SuppressionReason } from '../entities/suppression';

/** Whether the project never sends to this address (hard bounce, complaint, or added by hand). */
export async function isSuppressed(manager: EntityManager, projectId: string, email: string): Promise<boolean> {
  const rows = await manager.query('SELECT 1 FROM suppressions WHERE project_id = $1 AND email = $2', [projectId, email.toLowerCase()]);
  return rows.length > 0;
}

/** Adds an address to the project's suppression list; the first reason recorded stays. */
export async function suppress(manager: EntityManager, projectId: string, email: string, reason: SuppressionReason): Promise<void> {
  await manager.query(
    'INSERT INTO suppressions (project_id, email, reason) VALUES ($1, $2, $3) ON CONFLICT (project_id, email) DO NOTHING',
    [projectId, email.toLowerCase(), reason],
  );
}
