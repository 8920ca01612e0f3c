import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, projects, keys, members, request bookkeeping (idempotency, rate limits) and the outbox. */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        password_hash text NOT NULL,
        email_verified boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_email_key ON users (lower(email));

      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_user_idx ON sessions (user_id);

      CREATE TABLE auth_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('VERIFY_EMAIL', 'PASSWORD_RESET')),
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE projects (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        disabled boolean NOT NULL DEFAULT false,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('public', 'secret')),
        key_hash text NOT NULL UNIQUE,
        prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, kind)
      );

      CREATE TABLE project_members (
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, user_id)
      );
      CREATE INDEX project_members_user_idx ON project_members (user_id);

      CREATE TABLE project_invites (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        email text NOT NULL,
        role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
        invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX project_invites_email_key ON project_invites (project_id, lower(email));
      CREATE INDEX project_invites_lookup_idx ON project_invites (lower(email));

      CREATE TABLE idempotency_keys (
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        key text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        status_code integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, key)
      );
      CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

      CREATE TABLE rate_limit_windows (
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        window_start timestamptz NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (project_id, window_start)
      );
      CREATE INDEX rate_limit_windows_start_idx ON rate_limit_windows (window_start);

      CREATE TABLE outbox_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        message_id text NOT NULL,
        "from" text NOT NULL,
        "to" text[] NOT NULL,
        reply_to text,
        subject text NOT NULL,
        html text NOT NULL,
        text text NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        attachments jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX outbox_messages_created_idx ON outbox_messages (created_at DESC);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE outbox_messages, rate_limit_windows, idempotency_keys, project_invites,
        project_members, api_keys, projects, auth_tokens, sessions, users;
    `);
  }
}
