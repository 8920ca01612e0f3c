import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing, reputation and suppression management:
 * - `billing_limits`: per-project caps per category (null = no cap);
 * - `billing_accounts`: the project's payment customer and subscription, as the payment
 *   provider last reported them; `billing_webhook_events` receipts apply each event once;
 * - `project_suspensions`: every automatic suspension and when it was lifted; a project's
 *   `reputation_since` starts the rate window afresh after a lift;
 * - suppressions hold a whole domain as well as an address: `value` is the address or the
 *   domain, `type` says which;
 * - emails by project and send time, for the 7-day bounce and complaint rates.
 */
export class BillingSecurity1764200000000 implements MigrationInterface {
  name = 'BillingSecurity1764200000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE billing_limits (
        project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        emails integer CHECK (emails >= 0),
        contacts integer CHECK (contacts >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE billing_accounts (
        project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        customer_id text NOT NULL UNIQUE,
        subscription_id text,
        subscription_status text,
        price_id text,
        current_period_end timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE billing_webhook_events (
        id text PRIMARY KEY,
        type text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      );

      ALTER TABLE projects ADD COLUMN reputation_since timestamptz;

      CREATE TABLE project_suspensions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        reason text NOT NULL,
        sent integer NOT NULL,
        bounced integer NOT NULL,
        complained integer NOT NULL,
        bounce_rate double precision NOT NULL,
        complaint_rate double precision NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        lifted_at timestamptz,
        lifted_by uuid REFERENCES users(id) ON DELETE SET NULL
      );
      CREATE INDEX project_suspensions_project_idx ON project_suspensions (project_id, created_at DESC);

      ALTER TABLE suppressions RENAME COLUMN email TO value;
      ALTER TABLE suppressions ADD COLUMN type text NOT NULL DEFAULT 'EMAIL' CHECK (type IN ('EMAIL', 'DOMAIN'));
      CREATE INDEX suppressions_project_created_idx ON suppressions (project_id, created_at DESC, value);

      CREATE INDEX emails_project_sent_idx ON emails (project_id, sent_at) WHERE sent_at IS NOT NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX emails_project_sent_idx;
      DROP INDEX suppressions_project_created_idx;
      DELETE FROM suppressions WHERE type = 'DOMAIN';
      ALTER TABLE suppressions DROP COLUMN type;
      ALTER TABLE suppressions RENAME COLUMN value TO email;
      DROP TABLE project_suspensions;
      ALTER TABLE projects DROP COLUMN reputation_since;
      DROP TABLE billing_webhook_events;
      DROP TABLE billing_accounts;
      DROP TABLE billing_limits;
    `);
  }
}
