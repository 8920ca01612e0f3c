import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sending: sender domains, templates, one row per email sent (with its attachments),
 * the suppression list, and the receipts that make mail-event notifications count once.
 */
export class Sending1763900000000 implements MigrationInterface {
  name = 'Sending1763900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE domains (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        domain text NOT NULL CHECK (domain = lower(domain)),
        status text NOT NULL CHECK (status IN ('PENDING', 'VERIFIED', 'FAILED')),
        records jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        verified_at timestamptz,
        last_checked_at timestamptz
      );
      CREATE UNIQUE INDEX domains_domain_key ON domains (domain);
      CREATE INDEX domains_project_idx ON domains (project_id);
      CREATE INDEX domains_pending_idx ON domains (last_checked_at) WHERE status <> 'VERIFIED';

      CREATE TABLE templates (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        subject text NOT NULL DEFAULT '',
        body text NOT NULL DEFAULT '',
        "from" text NOT NULL,
        from_name text,
        reply_to text,
        type text NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX templates_project_created_idx ON templates (project_id, created_at DESC);

      CREATE TABLE emails (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
        template_id uuid REFERENCES templates(id) ON DELETE SET NULL,
        campaign_id uuid,
        source text NOT NULL CHECK (source IN ('SEND', 'CAMPAIGN', 'WORKFLOW', 'TEST')),
        type text NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
        to_email text NOT NULL,
        to_name text,
        "from" text NOT NULL,
        from_name text,
        reply_to text,
        subject text NOT NULL,
        body text NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        variables jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL CHECK (status IN ('QUEUED', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED', 'SKIPPED')),
        message_id text,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        sent_at timestamptz,
        delivered_at timestamptz,
        opened_at timestamptz,
        clicked_at timestamptz,
        bounced_at timestamptz,
        complained_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX emails_project_created_idx ON emails (project_id, created_at DESC, id DESC);
      CREATE INDEX emails_contact_idx ON emails (contact_id, created_at DESC);
      CREATE UNIQUE INDEX emails_message_id_key ON emails (message_id) WHERE message_id IS NOT NULL;
      CREATE UNIQUE INDEX emails_campaign_contact_key ON emails (campaign_id, contact_id) WHERE campaign_id IS NOT NULL;

      CREATE TABLE email_attachments (
        email_id uuid NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
        position integer NOT NULL,
        filename text NOT NULL,
        content_type text NOT NULL,
        content bytea NOT NULL,
        PRIMARY KEY (email_id, position)
      );

      CREATE TABLE suppressions (
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email)),
        reason text NOT NULL CHECK (reason IN ('BOUNCE', 'COMPLAINT', 'MANUAL')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, email)
      );

      CREATE TABLE mail_event_receipts (
        notification_id text PRIMARY KEY,
        received_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE mail_event_receipts, suppressions, email_attachments, emails, templates, domains');
  }
}
