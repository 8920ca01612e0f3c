import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';

/** A migrated database of its own, dropped at the end. */
export interface ScratchDatabase {
  dataSource: DataSource;
  drop(): Promise<void>;
}

/**
 * A migrated database of its own beside the shared test database, for tests of work that spans
 * every project (housekeeping purges, background domain checks), so that they neither touch
 * other test files' rows nor count them.
 */
export async function createScratchDatabase(sharedUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `herald_${prefix}_${randomUUID().replace(/-/g, '')}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: sharedUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(sharedUrl);
  url.pathname = `/${name}`;
  const dataSource = await openDatabase(url.toString(), 2);
  return {
    dataSource,
    drop: async () => {
      await dataSource.destroy();
      await admin(`DROP DATABASE ${name}`);
    },
  };
}
