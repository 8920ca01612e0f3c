import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaign audiences are paged by keyset on contact id within a project
 * (src/campaigns/audience-queries.ts): `WHERE c.project_id = $1 AND c.id > $after ORDER BY c.id`.
 */
export class CampaignAudienceIndex1764060000000 implements MigrationInterface {
  name = 'CampaignAudienceIndex1764060000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX contacts_project_id_idx ON contacts (project_id, id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX contacts_project_id_idx');
  }
}
