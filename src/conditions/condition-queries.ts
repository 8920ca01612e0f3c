import type { EntityManager } from 'typeorm';
import type { Condition } from './condition';
import { audienceWhere } from './compile';

/** Whether one contact matches a condition (workflow CONDITION steps, tracked segments). */
export async function contactMatches(
  manager: EntityManager,
  projectId: string,
  contactId: string,
  condition: Condition,
  eventData?: Record<string, unknown>,
): Promise<boolean> {
  const { where, params } = await audienceWhere(manager, projectId, condition, { eventData });
  params.push(contactId);
  const rows = await manager.query(`SELECT 1 FROM contacts c WHERE ${where} AND c.id = $${params.length}`, params);
  return rows.length > 0;
}
