import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth sign-in: each provider identity (GitHub or Google user) is linked to one Herald
 * user. A user created through a provider has no password until they reset one, so
 * `users.password_hash` becomes nullable.
 */
export class OAuthAccounts1764400000000 implements MigrationInterface {
  name = 'OAuthAccounts1764400000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;

      CREATE TABLE oauth_accounts (
        provider text NOT NULL CHECK (provider IN ('github', 'google')),
        provider_user_id text NOT NULL,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        email text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (provider, provider_user_id)
      );
      CREATE INDEX oauth_accounts_user_idx ON oauth_accounts (user_id);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    // An empty hash matches no password, so OAuth-only users stay locked out until they reset one.
    await db.query(`
      DROP TABLE oauth_accounts;
      UPDATE users SET password_hash = '' WHERE password_hash IS NULL;
      ALTER TABLE users ALTER COLUMN password_hash SET NOT NULL;
    `);
  }
}
