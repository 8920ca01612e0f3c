import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate-limit windows count any bucket, not only a project: `project:<id>` (API keys),
 * `auth-address:<client address>` and the per-account-email budgets of `/auth`. Windows
 * differ in length (a minute, 15 minutes, an hour), so each row says when it may be purged.
 * The windows counted so far are dropped: they cover the current minute at most.
 */
export class RateLimitBuckets1764624000000 implements MigrationInterface {
  name = 'RateLimitBuckets1764624000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      DELETE FROM rate_limit_windows;
      ALTER TABLE rate_limit_windows DROP CONSTRAINT rate_limit_windows_project_id_fkey;
      ALTER TABLE rate_limit_windows RENAME COLUMN project_id TO bucket;
      ALTER TABLE rate_limit_windows ALTER COLUMN bucket TYPE text;
      ALTER TABLE rate_limit_windows ADD COLUMN expires_at timestamptz NOT NULL;
      DROP INDEX rate_limit_windows_start_idx;
      CREATE INDEX rate_limit_windows_expiry_idx ON rate_limit_windows (expires_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DELETE FROM rate_limit_windows;
      DROP INDEX rate_limit_windows_expiry_idx;
      ALTER TABLE rate_limit_windows DROP COLUMN expires_at;
      ALTER TABLE rate_limit_windows ALTER COLUMN bucket TYPE uuid USING bucket::uuid;
      ALTER TABLE rate_limit_windows RENAME COLUMN bucket TO project_id;
      ALTER TABLE rate_limit_windows ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
      CREATE INDEX rate_limit_windows_start_idx ON rate_limit_windows (window_start);
    `);
  }
}
