import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A membership takes effect only for a verified email (CONTRACT 15). Memberships that invites
 * or `add` gave to accounts whose email is still unverified become pending invites again, which
 * apply when the address is verified. A project creator's own membership (made in the project's
 * transaction, so with the project's `created_at`) stays.
 */
export class VerifiedMemberships1764623000000 implements MigrationInterface {
  name = 'VerifiedMemberships1764623000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      WITH moved AS (
        DELETE FROM project_members m USING users u, projects p
         WHERE u.id = m.user_id AND p.id = m.project_id AND NOT u.email_verified AND m.created_at <> p.created_at
        RETURNING m.project_id, u.email, m.role)
      INSERT INTO project_invites (project_id, email, role)
      SELECT project_id, email, role FROM moved
      ON CONFLICT (project_id, lower(email)) DO NOTHING
    `);
  }

  async down(): Promise<void> {
    // The moved memberships stay pending invites: which of them were legitimate is not known.
  }
}
