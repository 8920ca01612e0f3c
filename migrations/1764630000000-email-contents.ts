import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What every recipient of one `/v1/send` request shares (body, custom headers, one-off
 * variables and attachments) is stored once, in `email_contents`, and each email record
 * references it instead of carrying a copy: 100 recipients of 10 MB of attachments are
 * 10 MB of rows, not 1 GB. An email has either its own body or a content (emails of
 * campaigns, workflows and test sends keep their own). Existing emails with attachments
 * move theirs to a content of their own.
 */
export class EmailContents1764630000000 implements MigrationInterface {
  name = 'EmailContents1764630000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE email_contents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        body text NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        variables jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX email_contents_project_idx ON email_contents (project_id);

      INSERT INTO email_contents (id, project_id, body, headers, variables, created_at)
        SELECT e.id, e.project_id, e.body, e.headers, e.variables, e.created_at FROM emails e
         WHERE EXISTS (SELECT 1 FROM email_attachments a WHERE a.email_id = e.id);
      ALTER TABLE emails ALTER COLUMN body DROP NOT NULL, ADD COLUMN content_id uuid REFERENCES email_contents(id);
      UPDATE emails SET content_id = id, body = NULL, headers = '{}', variables = '{}' WHERE id IN (SELECT id FROM email_contents);
      ALTER TABLE emails ADD CONSTRAINT emails_body_or_content CHECK (num_nonnulls(body, content_id) = 1);
      CREATE INDEX emails_content_idx ON emails (content_id) WHERE content_id IS NOT NULL;

      ALTER TABLE email_attachments DROP CONSTRAINT email_attachments_email_id_fkey;
      ALTER TABLE email_attachments RENAME COLUMN email_id TO content_id;
      ALTER TABLE email_attachments ADD CONSTRAINT email_attachments_content_id_fkey
        FOREIGN KEY (content_id) REFERENCES email_contents(id) ON DELETE CASCADE;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE email_attachments DROP CONSTRAINT email_attachments_content_id_fkey;
      ALTER TABLE email_attachments RENAME COLUMN content_id TO email_id;
      INSERT INTO email_attachments (email_id, position, filename, content_type, content)
        SELECT e.id, a.position, a.filename, a.content_type, a.content
          FROM emails e JOIN email_attachments a ON a.email_id = e.content_id WHERE e.id <> e.content_id;
      DELETE FROM email_attachments a WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.id = a.email_id);
      ALTER TABLE emails DROP CONSTRAINT emails_body_or_content;
      UPDATE emails e SET body = c.body, headers = c.headers, variables = c.variables FROM email_contents c WHERE c.id = e.content_id;
      ALTER TABLE emails DROP COLUMN content_id, ALTER COLUMN body SET NOT NULL;
      ALTER TABLE email_attachments ADD CONSTRAINT email_attachments_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails(id) ON DELETE CASCADE;
      DROP TABLE email_contents;
    `);
  }
}
