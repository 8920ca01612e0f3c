import type { DataSource } from 'typeorm';
import { newWebhookSecret } from '../../src/webhooks/signature';
import { emitWebhookEvents, type WebhookEventInput } from '../../src/webhooks/webhook-events';

/** A webhook endpoint of the project, inserted directly; its id and secret. */
export async function createEndpoint(
  dataSource: DataSource,
  projectId: string,
  url: string,
  events: string[] = ['*'],
): Promise<{ endpointId: string; secret: string }> {
  const secret = newWebhookSecret();
  const [{ id }] = await dataSource.query(
    'INSERT INTO webhook_endpoints (project_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING id',
    [projectId, url, events, secret],
  );
  return { endpointId: id, secret };
}

/** Emits one event and answers the ids of the deliveries it recorded, by endpoint. */
export async function emitOne(dataSource: DataSource, projectId: string, event: WebhookEventInput): Promise<Map<string, string>> {
  const before = new Set<string>((await dataSource.query('SELECT id FROM webhook_deliveries WHERE project_id = $1', [projectId])).map((row: { id: string }) => row.id));
  await emitWebhookEvents(dataSource.manager, projectId, [event]);
  const rows: { id: string; endpoint_id: string }[] = await dataSource.query('SELECT id, endpoint_id FROM webhook_deliveries WHERE project_id = $1', [projectId]);
  return new Map(rows.filter((row) => !before.has(row.id)).map((row) => [row.endpoint_id, row.id]));
}

/** A delivery row as tests check it. */
export interface DeliveryState {
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  started: boolean;
}

/** The current state of a delivery. */
export async function deliveryState(dataSource: DataSource, deliveryId: string): Promise<DeliveryState> {
  const [row] = await dataSource.query('SELECT status, attempts, last_status_code, last_error, started FROM webhook_deliveries WHERE id = $1', [deliveryId]);
  return row;
}
