import { composeCore } from '../composition';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { connectTemporal } from '../orchestration/client';
import { runMain } from '../runtime/shutdown';
import { DEVELOPMENT_RELAY_PORT, relayPort, startSmtpRelay } from '../smtp-relay/relay-start';

/** `npm run start:smtp`: the SMTP relay alone, against an external Postgres and Temporal. */
runMain('Herald SMTP relay', async (shutdown) => {
  const config = loadConfig();
  logger.level = config.logLevel;
  if (!config.databaseUrl || !config.temporalAddress) {
    throw new ConfigError('start:smtp needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs the relay with the embedded setup)');
  }
  const port = relayPort(config, DEVELOPMENT_RELAY_PORT);
  if (port === undefined) throw new ConfigError('start:smtp needs SMTP_RELAY_PORT to be a port, not off');
  const dataSource = await openDatabase(config.databaseUrl);
  shutdown.add('database pool', () => dataSource.destroy());
  const { client, close: closeTemporal } = await connectTemporal(config.temporalAddress, config.temporalNamespace);
  shutdown.add('Temporal client', closeTemporal);
  const relay = await startSmtpRelay(composeCore(config, dataSource, client), port);
  shutdown.add('SMTP relay', relay.close);
});
