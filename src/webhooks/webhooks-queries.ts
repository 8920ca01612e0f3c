import type { EntityManager } from 'typeorm';

/** An event as stored: its type, its data and an optional per-project dedupe key. */
export interface WebhookEventRow {
  type: string;
  data: Record<string, unknown>;
  key?: string;
}

/**
 * Records the events that at least one enabled endpoint of the project subscribes to (by type or
 * `*`), with a PENDING delivery per such endpoint, in one statement: nothing is written when no
 * endpoint wants an event, and an event whose key the project already recorded is skipped.
 */
export async function insertEvents(manager: EntityManager, projectId: string, events: WebhookEventRow[]): Promise<void> {
  if (events.length === 0) return;
  await manager.query(
    `WITH input AS MATERIALIZED (
       SELECT gen_random_uuid() AS id, e.type, e.data, e.key
         FROM jsonb_to_recordset($2::jsonb) AS e(type text, data jsonb, key text)
     ),
     targets AS MATERIALIZED (
       SELECT i.id AS event_id, w.id AS endpoint_id
         FROM input i JOIN webhook_endpoints w
           ON w.project_id = $1 AND w.enabled AND w.events && ARRAY['*', i.type]
     ),
     recorded AS (
       INSERT INTO webhook_events (id, project_id, type, data, dedupe_key)
       SELECT i.id, $1, i.type, coalesce(i.data, '{}'), i.key FROM input i
        WHERE EXISTS (SELECT 1 FROM targets t WHERE t.event_id = i.id)
       ON CONFLICT (project_id, dedupe_key) DO NOTHING
       RETURNING id
     )
     INSERT INTO webhook_deliveries (endpoint_id, event_id, project_id)
     SELECT t.endpoint_id, t.event_id, $1 FROM targets t JOIN recorded r ON r.id = t.event_id`,
    [projectId, JSON.stringify(events.map(({ type, data, key }) => ({ type, data, key: key ?? null })))],
  );
}
