import { EventDispatcher } from '../events/dispatcher';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { createMailer } from '../mailer';
import { runMain } from '../runtime/shutdown';
import { runWorker } from '../runtime/worker-runner';
import { registerSegmentTracking } from '../segments/segment-tracking';
import { connectTemporal } from '../temporal/client';
import { ensureDomainCheckSchedule } from '../temporal/domain-check';
import { ensureEventRedelivery } from '../temporal/event-redelivery';
import { ensureHousekeeping } from '../temporal/housekeeping';
import { ensureSegmentRecomputeSchedule } from '../temporal/segment-recompute';
import { registerWorkflowTriggers } from '../automations/triggers';

/** `npm run start:worker`: a Temporal worker alone, against an external Postgres and Temporal. */
runMain('Herald worker', async (shutdown) => {
  const config = loadConfig();
  logger.level = config.logLevel;
  if (!config.databaseUrl || !config.temporalAddress) {
    throw new ConfigError('start:worker needs DATABASE_URL and TEMPORAL_ADDRESS (use npm start for the embedded setup)');
  }
  const dataSource = await openDatabase(config.databaseUrl);
  shutdown.add('database pool', () => dataSource.destroy());
  const mailer = createMailer(config, dataSource);
  shutdown.add('mailer', async () => mailer.close?.());
  const { connection, client } = await connectTemporal(config.temporalAddress, config.temporalNamespace);
  shutdown.add('Temporal client', () => connection.close());
  const dispatcher = new EventDispatcher();
  registerSegmentTracking(dispatcher, { dataSource });
  registerWorkflowTriggers(dispatcher, { dataSource, temporal: client, taskQueue: config.taskQueue });
  await runWorker(config, config.temporalAddress, { dataSource, mailer, dispatcher }, shutdown);
  await ensureHousekeeping(client, config.taskQueue);
  await ensureEventRedelivery(client, config.taskQueue);
  await ensureDomainCheckSchedule(client, config.taskQueue);
  await ensureSegmentRecomputeSchedule(client, config.taskQueue, config.segmentRecomputeMinutes);
  logger.info(`Herald worker polling task queue "${config.taskQueue}"`);
});
