import type { EntityManager } from 'typeorm';
import type { FieldType } from './data-rules';

/** The project's custom keys with their recorded types, by key. */
export function listFieldTypes(manager: EntityManager, projectId: string): Promise<{ key: string; type: FieldType }[]> {
  return manager.query('SELECT key, type FROM contact_fields WHERE project_id = $1 ORDER BY key', [projectId]);
}

/** How many contacts the project has and, for each key, how many have it set; counted in one pass. */
export async function countFieldCoverage(manager: EntityManager, projectId: string, keys: string[]): Promise<{ total: number; counts: number[] }> {
  const coverage = keys.map((_, i) => `count(*) FILTER (WHERE data ? $${i + 2})`).join(', ');
  const [row]: { total: number; counts: number[] }[] = await manager.query(
    `SELECT count(*)::int AS total, ARRAY[${coverage}]::int[] AS counts FROM contacts WHERE project_id = $1`,
    [projectId, ...keys],
  );
  return row;
}

/** The distinct values of a contact column with how many contacts hold each, most frequent first. */
export function countColumnValues(manager: EntityManager, projectId: string, column: string, limit: number): Promise<{ value: unknown; count: number }[]> {
  return manager.query(
    `SELECT ${column} AS value, count(*)::int AS count FROM contacts WHERE project_id = $1
      GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2`,
    [projectId, limit],
  );
}

/** The distinct values at a JSON path of `data` with how many contacts hold each, most frequent first. */
export function countDataValues(manager: EntityManager, projectId: string, path: string[], limit: number): Promise<{ value: unknown; count: number }[]> {
  return manager.query(
    `SELECT data #> $2::text[] AS value, count(*)::int AS count FROM contacts
      WHERE project_id = $1 AND data ? $3 AND data #> $2::text[] IS NOT NULL
      GROUP BY 1 ORDER BY 2 DESC LIMIT $4`,
    [projectId, path, path[0], limit],
  );
}

/** Whether the project has recorded the custom key. */
export async function isKnownField(manager: EntityManager, projectId: string, key: string): Promise<boolean> {
  const rows: unknown[] = await manager.query('SELECT 1 FROM contact_fields WHERE project_id = $1 AND key = $2', [projectId, key]);
  return rows.length > 0;
}

/** Removes a custom key from every contact of the project and forgets its type; returns how many contacts had it. */
export async function deleteField(manager: EntityManager, projectId: string, key: string): Promise<number> {
  const [, contactsUpdated]: [unknown, number] = await manager.query(
    `UPDATE contacts SET data = data - $2::text, updated_at = now() WHERE project_id = $1 AND data ? $2`,
    [projectId, key],
  );
  await manager.query('DELETE FROM contact_fields WHERE project_id = $1 AND key = $2', [projectId, key]);
  return contactsUpdated;
}
