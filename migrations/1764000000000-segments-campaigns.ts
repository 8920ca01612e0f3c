import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Segments (dynamic condition trees or static lists, with stored membership for static
 * and tracked segments) and campaigns with their counters. Emails of a campaign are
 * unique per contact (emails_campaign_contact_key), which makes campaign sends exactly once.
 */
export class SegmentsCampaigns1764000000000 implements MigrationInterface {
  name = 'SegmentsCampaigns1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE segments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        description text,
        type text NOT NULL CHECK (type IN ('DYNAMIC', 'STATIC')),
        condition jsonb,
        track_membership boolean NOT NULL DEFAULT false,
        member_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX segments_project_idx ON segments (project_id, created_at DESC);

      CREATE TABLE segment_members (
        segment_id uuid NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (segment_id, contact_id)
      );
      CREATE INDEX segment_members_contact_idx ON segment_members (contact_id);

      CREATE TABLE campaigns (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        subject text NOT NULL,
        body text NOT NULL,
        "from" text NOT NULL,
        from_name text,
        reply_to text,
        type text NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
        status text NOT NULL CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED')),
        audience_type text NOT NULL CHECK (audience_type IN ('ALL', 'SEGMENT', 'FILTERED')),
        segment_id uuid REFERENCES segments(id) ON DELETE SET NULL,
        audience_condition jsonb,
        scheduled_for timestamptz,
        total_recipients integer NOT NULL DEFAULT 0,
        sent_count integer NOT NULL DEFAULT 0,
        delivered_count integer NOT NULL DEFAULT 0,
        opened_count integer NOT NULL DEFAULT 0,
        clicked_count integer NOT NULL DEFAULT 0,
        bounced_count integer NOT NULL DEFAULT 0,
        complained_count integer NOT NULL DEFAULT 0,
        stopped_reason text,
        sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX campaigns_project_idx ON campaigns (project_id, created_at DESC);
      CREATE INDEX campaigns_segment_idx ON campaigns (segment_id) WHERE segment_id IS NOT NULL;
      ALTER TABLE emails ADD CONSTRAINT emails_campaign_fk FOREIGN KEY (campaign_id) REFERENCES campaigns(id) ON DELETE SET NULL;

      -- Reads a text value as a timestamp for date filters; NULL for anything that is not a date.
      CREATE FUNCTION herald_try_timestamptz(value text) RETURNS timestamptz
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
      BEGIN
        IF value IS NULL OR value !~ '^\\d{4}-\\d{2}-\\d{2}' THEN RETURN NULL; END IF;
        RETURN value::timestamptz;
      EXCEPTION WHEN others THEN
        RETURN NULL;
      END;
      $$;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP FUNCTION herald_try_timestamptz(text);
      ALTER TABLE emails DROP CONSTRAINT emails_campaign_fk;
      DROP TABLE campaigns, segment_members, segments;
    `);
  }
}
