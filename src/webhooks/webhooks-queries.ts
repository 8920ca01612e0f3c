import type { EntityManager } from 'typeorm';
import { WebhookDelivery, WebhookEndpoint, type WebhookDeliveryStatus } from '../entities/webhook';

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

/** The most endpoints a project may have. */
export const MAX_ENDPOINTS_PER_PROJECT = 20;

/** Test events of one endpoint that may wait for delivery at once (`POST /webhooks/{id}/test`). */
export const MAX_PENDING_TESTS = 10;

/** Days of failures without a success after which an endpoint is disabled. */
export const DISABLE_AFTER_DAYS = 5;

/** An endpoint row as the API answers it (the secret included; views decide whether to show it). */
function endpointFromRow(row: Record<string, unknown>): WebhookEndpoint {
  return Object.assign(new WebhookEndpoint(), {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    secret: row.secret,
    failingSince: row.failing_since,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** What a new endpoint stores. */
export interface NewEndpoint {
  url: string;
  events: string[];
  description: string | null;
  secret: string;
}

/**
 * Inserts an endpoint unless the project has MAX_ENDPOINTS_PER_PROJECT already (undefined then);
 * a per-project lock held to the end of the transaction makes concurrent creations count right.
 */
export async function insertEndpoint(manager: EntityManager, projectId: string, endpoint: NewEndpoint): Promise<WebhookEndpoint | undefined> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook-endpoints:' || $1, 0))`, [projectId]);
  const rows: Record<string, unknown>[] = await manager.query(
    `INSERT INTO webhook_endpoints (project_id, url, events, description, secret)
     SELECT $1, $2, $3, $4, $5 WHERE (SELECT count(*) FROM webhook_endpoints WHERE project_id = $1) < $6
     RETURNING *`,
    [projectId, endpoint.url, endpoint.events, endpoint.description, endpoint.secret, MAX_ENDPOINTS_PER_PROJECT],
  );
  return rows[0] && endpointFromRow(rows[0]);
}

/** The project's endpoints, oldest first. */
export async function projectEndpoints(manager: EntityManager, projectId: string): Promise<WebhookEndpoint[]> {
  const rows: Record<string, unknown>[] = await manager.query('SELECT * FROM webhook_endpoints WHERE project_id = $1 ORDER BY created_at, id', [projectId]);
  return rows.map(endpointFromRow);
}

/** An endpoint of the project; undefined when the project has none with that id. */
export async function projectEndpoint(manager: EntityManager, projectId: string, id: string): Promise<WebhookEndpoint | undefined> {
  const rows: Record<string, unknown>[] = await manager.query('SELECT * FROM webhook_endpoints WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0] && endpointFromRow(rows[0]);
}

/** The fields `PATCH /webhooks/{id}` changes; an absent one is kept. */
export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * Changes an endpoint of the project and answers it; undefined when there is none. Enabling it
 * forgets its failures and why it was disabled; disabling it records that it was disabled through the API.
 */
export async function updateEndpoint(manager: EntityManager, projectId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpoint | undefined> {
  const [rows] = (await manager.query(
    `UPDATE webhook_endpoints SET
        url = coalesce($3, url),
        events = coalesce($4, events),
        description = CASE WHEN $5 THEN $6 ELSE description END,
        failing_since = CASE WHEN $7::boolean AND NOT enabled THEN NULL ELSE failing_since END,
        disabled_reason = CASE WHEN $7::boolean THEN NULL WHEN $7 = false AND enabled THEN 'Disabled through the API' ELSE disabled_reason END,
        disabled_at = CASE WHEN $7::boolean THEN NULL WHEN $7 = false AND enabled THEN now() ELSE disabled_at END,
        enabled = coalesce($7, enabled),
        updated_at = now()
      WHERE project_id = $1 AND id = $2 RETURNING *`,
    [projectId, id, patch.url ?? null, patch.events ?? null, patch.description !== undefined, patch.description ?? null, patch.enabled ?? null],
  )) as [Record<string, unknown>[], number];
  return rows[0] && endpointFromRow(rows[0]);
}

/** Replaces an endpoint's signing secret and answers it; undefined when the project has no such endpoint. */
export async function replaceSecret(manager: EntityManager, projectId: string, id: string, secret: string): Promise<WebhookEndpoint | undefined> {
  const [rows] = (await manager.query(
    'UPDATE webhook_endpoints SET secret = $3, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING *',
    [projectId, id, secret],
  )) as [Record<string, unknown>[], number];
  return rows[0] && endpointFromRow(rows[0]);
}

/** Deletes an endpoint of the project with its deliveries; false when there was none. */
export async function deleteEndpoint(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
  const [, deleted] = (await manager.query('DELETE FROM webhook_endpoints WHERE project_id = $1 AND id = $2', [projectId, id])) as [unknown, number];
  return deleted > 0;
}

/** Locks an endpoint of the project to the end of the transaction; false when the project has none with that id. */
export async function lockEndpoint(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
  const rows: unknown[] = await manager.query('SELECT id FROM webhook_endpoints WHERE project_id = $1 AND id = $2 FOR UPDATE', [projectId, id]);
  return rows.length > 0;
}

/**
 * How many deliveries of `type` to an endpoint of the project are still PENDING, counted up to
 * `cap`; only those recorded in the last 26 hours are looked at (an index range), as attempts
 * end after 25.
 */
export async function countPendingOfType(manager: EntityManager, projectId: string, endpointId: string, type: string, cap: number): Promise<number> {
  const [{ count }] = await manager.query(
    `SELECT count(*)::int AS count FROM (
       SELECT 1 FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.endpoint_id = $2 AND d.project_id = $1 AND d.created_at > now() - interval '26 hours'
          AND d.status = 'PENDING' AND e.type = $3
        LIMIT $4) pending`,
    [projectId, endpointId, type, cap],
  );
  return count;
}

/** Records an event of `type` for one endpoint of the project, whatever it subscribes to, with its delivery; answers the delivery. */
export async function insertEndpointEvent(
  manager: EntityManager,
  projectId: string,
  endpointId: string,
  event: WebhookEventRow,
): Promise<DeliveryRow> {
  const rows: Record<string, unknown>[] = await manager.query(
    `WITH recorded AS (
       INSERT INTO webhook_events (project_id, type, data) VALUES ($1, $3, $4) RETURNING id, type
     )
     INSERT INTO webhook_deliveries (endpoint_id, event_id, project_id)
     SELECT $2, r.id, $1 FROM recorded r
     RETURNING *, (SELECT type FROM recorded) AS event_type, created_at::text AS sort_value`,
    [projectId, endpointId, event.type, JSON.stringify(event.data)],
  );
  return deliveryFromRow(rows[0]);
}

/** A delivery with its event's type, as the deliveries page answers it. */
export interface DeliveryRow {
  delivery: WebhookDelivery;
  eventType: string;
  position: DeliveryCursor;
}

/** Where a deliveries page continues: the last row's `created_at` as text (microseconds kept) and id. */
export interface DeliveryCursor {
  v: string;
  id: string;
}

/** Maps a raw delivery row (with `event_type` and `sort_value`) to the entity and its page position. */
function deliveryFromRow(row: Record<string, unknown>): DeliveryRow {
  const delivery = Object.assign(new WebhookDelivery(), {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    projectId: row.project_id,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    started: row.started,
    startedAt: row.started_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  });
  return { delivery, eventType: row.event_type as string, position: { v: row.sort_value as string, id: row.id as string } };
}

/** `limit` deliveries of an endpoint of the project after a keyset position, newest first. */
export async function readDeliveries(
  manager: EntityManager,
  projectId: string,
  endpointId: string,
  limit: number,
  cursor: DeliveryCursor | undefined,
): Promise<DeliveryRow[]> {
  const params: unknown[] = [projectId, endpointId, limit];
  let keyset = '';
  if (cursor) {
    params.push(cursor.v, cursor.id);
    keyset = ' AND (d.created_at, d.id) < ($4::timestamptz, $5::uuid)';
  }
  const rows: Record<string, unknown>[] = await manager.query(
    `SELECT d.*, e.type AS event_type, d.created_at::text AS sort_value
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.endpoint_id = $2 AND d.project_id = $1${keyset}
      ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
    params,
  );
  return rows.map(deliveryFromRow);
}

/** How many deliveries an endpoint of the project has. */
export async function countDeliveries(manager: EntityManager, projectId: string, endpointId: string): Promise<number> {
  const [{ count }] = await manager.query('SELECT count(*)::int AS count FROM webhook_deliveries WHERE project_id = $1 AND endpoint_id = $2', [projectId, endpointId]);
  return count;
}

// ---- Dispatch and delivery (the worker).

/** A delivery whose workflow is to be started, with what its id and UI summary name. */
export interface UnstartedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  url: string;
}

/** Deliveries of one project one dispatch pass claims at most, so that one project's backlog holds no other back. */
export const DISPATCH_PER_PROJECT = 50;

/**
 * Locks up to `limit` deliveries whose workflow is not started yet, round-robin across projects:
 * each project's oldest first, at most `perProject` of each, the first of every project before
 * the second of any; rows another transaction holds are skipped. The projects with unstarted
 * deliveries are found by a skip scan of the partial index (one probe per project), however
 * long a backlog is. Call in the transaction that marks them started.
 */
export async function claimUnstarted(manager: EntityManager, limit: number, perProject = DISPATCH_PER_PROJECT): Promise<UnstartedDelivery[]> {
  const rows: { id: string; endpoint_id: string; event_id: string; type: string; url: string }[] = await manager.query(
    `WITH RECURSIVE projects(project_id) AS (
       (SELECT project_id FROM webhook_deliveries WHERE NOT started ORDER BY project_id LIMIT 1)
       UNION ALL
       SELECT (SELECT d.project_id FROM webhook_deliveries d
                WHERE NOT d.started AND d.project_id > p.project_id ORDER BY d.project_id LIMIT 1)
         FROM projects p WHERE p.project_id IS NOT NULL
     ),
     turns AS (
       SELECT q.id, q.turn, q.created_at FROM projects p
       CROSS JOIN LATERAL (
         SELECT d.id, d.created_at, row_number() OVER (ORDER BY d.created_at, d.id) AS turn
           FROM webhook_deliveries d
          WHERE d.project_id = p.project_id AND NOT d.started
          ORDER BY d.created_at, d.id LIMIT $2
       ) q
       WHERE p.project_id IS NOT NULL
       ORDER BY q.turn, q.created_at, q.id LIMIT $1
     )
     SELECT d.id, d.endpoint_id, d.event_id, e.type, w.url
       FROM turns t
       JOIN webhook_deliveries d ON d.id = t.id
       JOIN webhook_events e ON e.id = d.event_id
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE NOT d.started
      ORDER BY t.turn, t.created_at, t.id
      FOR UPDATE OF d SKIP LOCKED`,
    [limit, perProject],
  );
  return rows.map((row) => ({ id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, eventType: row.type, url: row.url }));
}

/** Marks deliveries as having their workflow started. */
export async function markStarted(manager: EntityManager, ids: string[]): Promise<void> {
  await manager.query('UPDATE webhook_deliveries SET started = true, started_at = now() WHERE id = ANY($1::uuid[])', [ids]);
}

/** What one delivery attempt needs: the delivery's status, its event, and its endpoint as it is now. */
export interface AttemptSubject {
  status: WebhookDeliveryStatus;
  endpointId: string;
  eventId: string;
  eventType: string;
  data: Record<string, unknown>;
  eventCreatedAt: Date;
  url: string;
  secret: string;
  enabled: boolean;
  disabledReason: string | null;
}

/** A delivery with its event and endpoint; undefined when it is gone (its endpoint or project was deleted). */
export async function attemptSubject(manager: EntityManager, deliveryId: string): Promise<AttemptSubject | undefined> {
  const rows: Record<string, unknown>[] = await manager.query(
    `SELECT d.status, d.endpoint_id, d.event_id, e.type, e.data, e.created_at, w.url, w.secret, w.enabled, w.disabled_reason
       FROM webhook_deliveries d
       JOIN webhook_events e ON e.id = d.event_id
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  const row = rows[0];
  return (
    row && {
      status: row.status as WebhookDeliveryStatus,
      endpointId: row.endpoint_id as string,
      eventId: row.event_id as string,
      eventType: row.type as string,
      data: row.data as Record<string, unknown>,
      eventCreatedAt: row.created_at as Date,
      url: row.url as string,
      secret: row.secret as string,
      enabled: row.enabled as boolean,
      disabledReason: row.disabled_reason as string | null,
    }
  );
}

/**
 * Records a 2xx answer: the delivery DELIVERED (if still PENDING) after `attempt` attempts, and
 * its endpoint no longer failing.
 */
export async function recordDelivered(manager: EntityManager, deliveryId: string, attempt: number, statusCode: number): Promise<void> {
  await manager.query(
    `WITH delivered AS (
       UPDATE webhook_deliveries SET status = 'DELIVERED', delivered_at = now(), attempts = greatest(attempts, $2),
              last_status_code = $3, last_error = NULL
        WHERE id = $1 AND status = 'PENDING' RETURNING endpoint_id
     )
     UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (SELECT endpoint_id FROM delivered) AND failing_since IS NOT NULL`,
    [deliveryId, attempt, statusCode],
  );
}

/**
 * Records a failed attempt of a PENDING delivery and marks its endpoint failing from now unless it
 * already was; an endpoint failing for DISABLE_AFTER_DAYS is disabled, with the reason, and the
 * delivery FAILED. Answers whether the endpoint is (now) disabled.
 */
export async function recordFailure(
  manager: EntityManager,
  deliveryId: string,
  endpointId: string,
  attempt: number,
  failure: { statusCode: number | null; error: string },
): Promise<{ disabled: boolean }> {
  const rows: { enabled: boolean }[] = await manager.query(
    `WITH endpoint AS (
       UPDATE webhook_endpoints SET
              failing_since = coalesce(failing_since, now()),
              enabled = enabled AND NOT coalesce(failing_since < now() - make_interval(days => $6::int), false),
              disabled_reason = CASE WHEN enabled AND failing_since < now() - make_interval(days => $6::int)
                THEN 'Every delivery failed for ' || $6::int || ' days (since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '); last error: ' || $5
                ELSE disabled_reason END,
              disabled_at = CASE WHEN enabled AND failing_since < now() - make_interval(days => $6::int) THEN now() ELSE disabled_at END
        WHERE id = $2 RETURNING enabled
     ),
     attempt AS (
       UPDATE webhook_deliveries SET attempts = greatest(attempts, $3), last_status_code = $4, last_error = $5,
              status = CASE WHEN (SELECT enabled FROM endpoint) THEN status ELSE 'FAILED' END
        WHERE id = $1 AND status = 'PENDING'
     )
     SELECT enabled FROM endpoint`,
    [deliveryId, endpointId, attempt, failure.statusCode, failure.error, DISABLE_AFTER_DAYS],
  );
  return { disabled: rows[0] ? !rows[0].enabled : true };
}

/** Ends a PENDING delivery as FAILED with `reason`, or with its last attempt's error when `keepLastError` and it has one. */
export async function failDelivery(manager: EntityManager, deliveryId: string, reason: string, keepLastError: boolean): Promise<void> {
  await manager.query(
    `UPDATE webhook_deliveries SET status = 'FAILED', last_error = CASE WHEN $3 THEN coalesce(last_error, $2) ELSE $2 END
      WHERE id = $1 AND status = 'PENDING'`,
    [deliveryId, reason, keepLastError],
  );
}

/** Days webhook events and their deliveries are kept. */
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;

/**
 * Deletes up to `limit` events (with their deliveries) recorded more than
 * WEBHOOK_EVENT_RETENTION_DAYS ago and no longer being delivered; answers how many.
 */
export async function purgeOldEvents(manager: EntityManager, limit: number): Promise<number> {
  const [, deleted] = (await manager.query(
    `DELETE FROM webhook_events WHERE id IN (
       SELECT e.id FROM webhook_events e
        WHERE e.created_at < now() - make_interval(days => $1)
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')
        LIMIT $2)`,
    [WEBHOOK_EVENT_RETENTION_DAYS, limit],
  )) as [unknown, number];
  return deleted;
}
