import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { SnakeNamingStrategy } from 'typeorm-naming-strategies';
import { migrations } from '../../migrations';
import { entities } from '../entities';

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
    extra: { max: poolSize },
  });
}

const MIGRATION_LOCK = 7_316_551;

/**
 * Connects and applies pending migrations under an advisory lock, so API and worker
 * processes starting together migrate once; a failure stops start-up.
 */
export async function openDatabase(url: string, poolSize = DEFAULT_POOL_SIZE): Promise<DataSource> {
  // At least two connections: one holds the migration lock while another migrates.
  const dataSource = createDataSource(url, Math.max(poolSize, 2));
  await dataSource.initialize();
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
