import type { EntityManager } from 'typeorm';

/**
 * Tables holding a project's own data, in an order that respects foreign keys.
 * `POST /users/@me/projects/{id}/reset` empties them; project, members, keys and
 * domains are kept. Each resource adds its tables here.
 */
export const PROJECT_DATA_TABLES: string[] = [
  'event_dispatches',
  'idempotency_keys',
  'emails',
  'events',
  'jobs',
  'contacts',
  'contact_fields',
  'templates',
  'suppressions',
];

/** Deletes every row of the project's data tables in one transaction. */
export async function wipeProjectData(manager: EntityManager, projectId: string): Promise<void> {
  for (const table of PROJECT_DATA_TABLES) {
    await manager.query(`DELETE FROM ${table} WHERE project_id = $1`, [projectId]);
  }
}
