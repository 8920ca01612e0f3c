import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts with their custom `data`, the per-project field types, events, and the
 * background jobs (CSV imports, bulk operations) with their uploads.
 *
 * Index notes (the queries are in src/contacts/contacts-queries.ts and src/events/events-queries.ts):
 * - contacts are listed by (project_id, created_at, id) or (project_id, email, id) keyset;
 * - `search` is a substring of the email: a trigram GIN index answers `email LIKE '%x%'`;
 * - `data ? key` filters (segments, field values) use the GIN index on data.
 */
export class ContactsEventsJobs1763800000000 implements MigrationInterface {
  name = 'ContactsEventsJobs1763800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE EXTENSION IF NOT EXISTS pg_trgm;

      CREATE TABLE contacts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email)),
        subscribed boolean NOT NULL,
        snoozed_until timestamptz,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX contacts_project_email_key ON contacts (project_id, email);
      CREATE INDEX contacts_project_created_idx ON contacts (project_id, created_at, id);
      CREATE INDEX contacts_email_trgm_idx ON contacts USING gin (email gin_trgm_ops);
      CREATE INDEX contacts_data_idx ON contacts USING gin (data);

      CREATE TABLE contact_fields (
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        key text NOT NULL,
        type text NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'date', 'object')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, key)
      );

      CREATE TABLE events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
        name text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        source text NOT NULL CHECK (source IN ('API', 'SYSTEM')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX events_project_created_idx ON events (project_id, created_at DESC, id DESC);
      CREATE INDEX events_project_name_idx ON events (project_id, name, created_at DESC);
      CREATE INDEX events_contact_idx ON events (contact_id, created_at DESC, id DESC);

      CREATE TABLE jobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE')),
        status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
        total integer NOT NULL DEFAULT 0,
        processed integer NOT NULL DEFAULT 0,
        succeeded integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        errors jsonb NOT NULL DEFAULT '[]',
        input jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      );
      CREATE INDEX jobs_project_idx ON jobs (project_id, created_at DESC);

      CREATE TABLE job_uploads (
        job_id uuid PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
        filename text NOT NULL,
        content bytea NOT NULL
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE job_uploads, jobs, events, contact_fields, contacts');
  }
}
