import { createApp } from '../app';
import { EventDispatcher } from '../events/dispatcher';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { createMailer } from '../mailer';
import { listen } from '../runtime/http-server';
import { runMain } from '../runtime/shutdown';
import { registerSegmentTracking } from '../segments/segment-tracking';
import { connectTemporal } from '../temporal/client';
import { registerWorkflowTriggers } from '../automations/triggers';

/** `npm run start:api`: the API alone, against an external Postgres and Temporal. */
runMain('Herald API', async (shutdown) => {
  const config = loadConfig();
  logger.level = config.logLevel;
  if (!config.databaseUrl || !config.temporalAddress) {
    throw new ConfigError('start:api needs DATABASE_URL and TEMPORAL_ADDRESS (use npm start for the embedded setup)');
  }
  const dataSource = await openDatabase(config.databaseUrl);
  shutdown.add('database pool', () => dataSource.destroy());
  const { connection, client } = await connectTemporal(config.temporalAddress, config.temporalNamespace);
  shutdown.add('Temporal client', () => connection.close());
  const mailer = createMailer(config, dataSource);
  const dispatcher = new EventDispatcher();
  registerSegmentTracking(dispatcher, { dataSource });
  registerWorkflowTriggers(dispatcher, { dataSource, temporal: client, taskQueue: config.taskQueue });
  shutdown.add('mailer', async () => mailer.close?.());
  const api = await listen(createApp({ config, dataSource, mailer, temporal: client, dispatcher }), config.port);
  shutdown.add('API', api.close);
  logger.info(`Herald API listening on port ${config.port}`);
});
