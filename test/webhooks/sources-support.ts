import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** A webhook event as recorded for a project's endpoints. */
export interface RecordedEvent {
  type: string;
  data: Record<string, any>;
  key: string | null;
}

/** Stores an enabled endpoint of the project subscribed to `events` (as `POST /webhooks` does); answers its id. */
export async function addEndpoint(dataSource: DataSource, projectId: string, events: string[], url = 'https://hooks.example.com/herald'): Promise<string> {
  const [{ id }] = await dataSource.query(
    `INSERT INTO webhook_endpoints (project_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING id`,
    [projectId, url, events, `whsec_${randomBytes(24).toString('base64')}`],
  );
  return id;
}

/** The webhook events recorded for a project, oldest first (one statement's events by type). */
export async function recordedEvents(dataSource: DataSource, projectId: string): Promise<RecordedEvent[]> {
  return dataSource.query(
    'SELECT type, data, dedupe_key AS key FROM webhook_events WHERE project_id = $1 ORDER BY created_at, type, dedupe_key',
    [projectId],
  );
}

/** The recorded events of some types, oldest first. */
export async function recordedOf(dataSource: DataSource, projectId: string, ...types: string[]): Promise<RecordedEvent[]> {
  return (await recordedEvents(dataSource, projectId)).filter((event) => types.includes(event.type));
}

/** The event types of an endpoint's deliveries, with the project of each event, oldest first. */
export async function deliveriesOf(dataSource: DataSource, endpointId: string): Promise<{ type: string; projectId: string }[]> {
  return dataSource.query(
    `SELECT e.type, e.project_id AS "projectId" FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.endpoint_id = $1 ORDER BY e.created_at, e.type`,
    [endpointId],
  );
}
