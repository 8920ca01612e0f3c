import type { EntityManager } from 'typeorm';
import type { ContactFacts } from './source-events';

/**
 * SQL true when the project in `projectColumn` has an enabled webhook endpoint (the partial index
 * `webhook_endpoints_enabled_idx`): hot paths read it inside a statement they run anyway, and
 * spend nothing on webhook events for a project without endpoints.
 */
export const hasEndpointSql = (projectColumn: string) =>
  `EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.project_id = ${projectColumn} AND w.enabled)`;

/** The contacts among `ids` of a project that has an enabled webhook endpoint; none when it has no endpoint. */
export async function contactsForWebhooks(manager: EntityManager, projectId: string, ids: string[]): Promise<ContactFacts[]> {
  return manager.query(
    `SELECT c.id, c.email, c.subscribed, c.data FROM contacts c
      WHERE c.project_id = $1 AND c.id = ANY($2::uuid[]) AND ${hasEndpointSql('$1')}`,
    [projectId, ids],
  );
}
