import { createApp } from '../app';
import { composeCore, createServices } from '../composition';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { listen } from '../runtime/http-server';
import { runMain } from '../runtime/shutdown';
import { connectTemporal } from '../orchestration/client';
import { relayPort, startSmtpRelay } from '../smtp-relay/relay-start';

/** `npm run start:api`: the API alone, against an external Postgres and Temporal. */
runMain('Herald API', async (shutdown) => {
  const config = loadConfig();
  logger.level = config.logLevel;
  if (!config.databaseUrl || !config.temporalAddress) {
    throw new ConfigError('start:api needs DATABASE_URL and TEMPORAL_ADDRESS (use npm start for the embedded setup)');
  }
  const dataSource = await openDatabase(config.databaseUrl);
  shutdown.add('database pool', () => dataSource.destroy());
  const { client, close: closeTemporal } = await connectTemporal(config.temporalAddress, config.temporalNamespace);
  shutdown.add('Temporal client', closeTemporal);
  const core = composeCore(config, dataSource, client);
  shutdown.add('mailer', async () => core.mailer.close?.());
  const services = createServices(core);
  const api = await listen(createApp(core, services), config.port);
  shutdown.add('API', api.close);
  logger.info(`Herald API listening on port ${config.port}`);
  const smtpPort = relayPort(config);
  if (smtpPort !== undefined) shutdown.add('SMTP relay', (await startSmtpRelay({ ...core, services }, smtpPort)).close);
});
