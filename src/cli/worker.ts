import { composeCore } from '../composition';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { runMain } from '../runtime/shutdown';
import { runWorker } from '../runtime/worker-runner';
import { connectTemporal } from '../orchestration/client';
import { ensureDomainCheckSchedule } from '../orchestration/domain-check';
import { ensureEventRedelivery } from '../orchestration/event-redelivery';
import { ensureHousekeeping } from '../orchestration/housekeeping';
import { ensureSegmentRecomputeSchedule } from '../orchestration/segment-recompute';
import { webhookTaskQueue } from '../orchestration/task-queues';
import { ensureWebhookDispatch } from '../orchestration/webhook-dispatch';
import { ensureSendLanes } from '../orchestration/send-lanes';

/** `npm run start:worker`: a Temporal worker alone, against an external Postgres and Temporal. */
runMain('Herald worker', async (shutdown) => {
  const config = loadConfig();
  logger.level = config.logLevel;
  if (!config.databaseUrl || !config.temporalAddress) {
    throw new ConfigError('start:worker needs DATABASE_URL and TEMPORAL_ADDRESS (use npm start for the embedded setup)');
  }
  const dataSource = await openDatabase(config.databaseUrl);
  shutdown.add('database pool', () => dataSource.destroy());
  const { client, close: closeTemporal } = await connectTemporal(config.temporalAddress, config.temporalNamespace);
  shutdown.add('Temporal client', closeTemporal);
  const core = composeCore(config, dataSource, client);
  shutdown.add('mailer', async () => core.mailer.close?.());
  await runWorker(core, config.temporalAddress, shutdown);
  await ensureHousekeeping(client, config.taskQueue);
  await ensureEventRedelivery(client, config.taskQueue);
  await ensureWebhookDispatch(client, config.taskQueue);
  await ensureSendLanes(client, config.taskQueue);
  await ensureDomainCheckSchedule(client, config.taskQueue);
  await ensureSegmentRecomputeSchedule(client, config.taskQueue, config.segmentRecomputeMinutes);
  logger.info(`Herald worker polling task queues "${config.taskQueue}" and "${webhookTaskQueue(config.taskQueue)}" (event webhooks)`);
});
