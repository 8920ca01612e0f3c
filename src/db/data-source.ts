import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { SnakeNamingStrategy } from 'typeorm-naming-strategies';
import { migrations } from '../../migrations';
import { entities } from '../entities';
import { describeSystemError, StartupError } from '../runtime/startup-error';

const DEFAULT_POOL_SIZE = 10;

/** A TypeORM data source for Herald's schema; the schema comes only from migrations. */
export function createDataSource(url: string, poolSize = DEFAULT_POOL_SIZE): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    // pipeline: a statement asked for while another runs on the same connection is sent at once,
    // not after the answer (pipelined transactions send START TRANSACTION and COMMIT so).
    // keepAlive: a connection kept open between uses (the track writer's) learns of a peer or a
    // network path that went away silently instead of hanging on its next statement.
    extra: { max: poolSize, pipeline: true, keepAlive: true },
  });
}

/** A connection URL without its password, to be shown in messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const secret of ['password', 'sslpassword', 'sslkey']) {
      if (parsed.searchParams.has(secret)) parsed.searchParams.set(secret, '***');
    }
    return parsed.toString();
  } catch {
    return 'DATABASE_URL (not a valid URL)';
  }
}

const MIGRATION_LOCK = 7_316_551;

/**
 * Connects and applies pending migrations under an advisory lock, so API and worker
 * processes starting together migrate once; a failure stops start-up.
 */
export async function openDatabase(url: string, poolSize = DEFAULT_POOL_SIZE): Promise<DataSource> {
  // At least two connections: one holds the migration lock while another migrates.
  const dataSource = createDataSource(url, Math.max(poolSize, 2));
  try {
    await dataSource.initialize();
  } catch (err) {
    throw new StartupError('Postgres', `cannot connect to ${redactedUrl(url)}: ${describeSystemError(err) ?? (err as Error).message}`, {
      hint: 'Check DATABASE_URL (host, port, user, password, database), or unset it to use the embedded Postgres.',
    });
  }
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    await lock.release();
  }
  return dataSource;
}
