import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { runMain } from '../runtime/shutdown';

/** `npm run migrate`: applies pending migrations to DATABASE_URL and exits. */
runMain('Herald migrate', async () => {
  const config = loadConfig();
  if (!config.databaseUrl) throw new ConfigError('migrate needs DATABASE_URL (npm start migrates the embedded database itself)');
  const dataSource = await openDatabase(config.databaseUrl);
  logger.info('migrations applied');
  await dataSource.destroy();
});
