import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API processes keep the keys they authenticated in memory. A change to what a key answers (a
 * project's keys replaced or deleted, a project renamed, disabled, enabled or deleted) notifies
 * channel `herald_keys_changed` when its transaction commits, whatever process or statement made
 * it, and every API process then forgets the keys it kept.
 */
export class KeysChangedNotify1764770000000 implements MigrationInterface {
  name = 'KeysChangedNotify1764770000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION herald_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('herald_keys_changed', '');
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION herald_keys_changed()`);
    await db.query(`CREATE TRIGGER projects_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON projects
      FOR EACH STATEMENT EXECUTE FUNCTION herald_keys_changed()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TRIGGER IF EXISTS projects_keys_changed ON projects');
    await db.query('DROP TRIGGER IF EXISTS api_keys_changed ON api_keys');
    await db.query('DROP FUNCTION IF EXISTS herald_keys_changed()');
  }
}
