import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';

/** A migrated database of its own, dropped at the end. */
export interface ScratchDatabase {
  dataSource: DataSource;
  /** Its connection URL, for a process of its own. */
  url: string;
  drop(): Promise<void>;
}

/** An empty database of its own on the server `serverUrl` names (its user may create databases), and how to drop it. */
export async function createDatabaseOn(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '')}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A migrated database of its own beside the shared test database, for tests of work that spans
 * every project (housekeeping purges, background domain checks), so that they neither touch
 * other test files' rows nor count them.
 */
export async function createScratchDatabase(sharedUrl: string, prefix: string, poolSize = 2): Promise<ScratchDatabase> {
  const database = await createDatabaseOn(sharedUrl, `herald_${prefix}`);
  const dataSource = await openDatabase(database.url, poolSize);
  return {
    dataSource,
    url: database.url,
    drop: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}
