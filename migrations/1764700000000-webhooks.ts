import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event webhooks. An endpoint subscribes a URL to event types (`*` for all); an event is stored
 * once per project (its optional `dedupe_key` makes a repeated emit record nothing), with one
 * delivery row per subscribed endpoint, in the transaction that caused it. The worker's
 * `webhook-dispatch` workflow starts a delivery workflow for each row not yet `started`
 * (`webhook_deliveries_unstarted_idx`); the deliveries page reads
 * `webhook_deliveries_endpoint_page_idx`; emitting reads `webhook_endpoints_enabled_idx`; housekeeping
 * deletes events past their retention by `webhook_events_created_idx`.
 */
export class Webhooks1764700000000 implements MigrationInterface {
  name = 'Webhooks1764700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        description text,
        enabled boolean NOT NULL DEFAULT true,
        secret text NOT NULL,
        failing_since timestamptz,
        disabled_reason text,
        disabled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_endpoints_project_idx ON webhook_endpoints (project_id, created_at, id);
      CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (project_id) WHERE enabled;

      CREATE TABLE webhook_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        type text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        dedupe_key text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, dedupe_key)
      );
      CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'PENDING',
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error text,
        started boolean NOT NULL DEFAULT false,
        started_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        UNIQUE (endpoint_id, event_id)
      );
      CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (created_at, id) WHERE NOT started;
      CREATE INDEX webhook_deliveries_endpoint_page_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
      CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE webhook_deliveries; DROP TABLE webhook_events; DROP TABLE webhook_endpoints;');
  }
}
