import { createApp } from '../app';
import { composeCore, createServices } from '../composition';
import { loadConfig } from '../config';
import { logger } from '../logger';
import { claimDataDir } from '../runtime/data-dir-claim';
import { listen } from '../runtime/http-server';
import { acquireDatabase, acquireTemporal } from '../runtime/infrastructure';
import { runMain } from '../runtime/shutdown';
import { runWorker } from '../runtime/worker-runner';
import { connectTemporal } from '../orchestration/client';
import { ensureDomainCheckSchedule } from '../orchestration/domain-check';
import { ensureEventRedelivery } from '../orchestration/event-redelivery';
import { ensureHousekeeping } from '../orchestration/housekeeping';
import { ensureSegmentRecomputeSchedule } from '../orchestration/segment-recompute';
import { ensureWebhookDispatch } from '../orchestration/webhook-dispatch';
import { ensureSendLanes } from '../orchestration/send-lanes';
import { DEVELOPMENT_RELAY_PORT, relayPort, startSmtpRelay } from '../smtp-relay/relay-start';

/** `npm start`: Postgres, Temporal, a worker and the API in one command, with embedded defaults. */
runMain('Herald', async (shutdown) => {
  const config = loadConfig();
  logger.level = config.logLevel;
  claimDataDir(config.dataDir, shutdown);

  const { dataSource, embedded } = await acquireDatabase(config, shutdown);
  const temporal = await acquireTemporal(config, shutdown);
  const { client, close: closeTemporal } = await connectTemporal(temporal.address, config.temporalNamespace);
  shutdown.add('Temporal client', closeTemporal);

  const core = composeCore(config, dataSource, client);
  shutdown.add('mailer', async () => core.mailer.close?.());
  await runWorker(core, temporal.address, shutdown);
  await ensureHousekeeping(client, config.taskQueue);
  await ensureEventRedelivery(client, config.taskQueue);
  await ensureWebhookDispatch(client, config.taskQueue);
  await ensureSendLanes(client, config.taskQueue);
  await ensureDomainCheckSchedule(client, config.taskQueue);
  await ensureSegmentRecomputeSchedule(client, config.taskQueue, config.segmentRecomputeMinutes);

  const services = createServices(core);
  const api = await listen(createApp(core, services), config.port);
  shutdown.add('API', api.close);
  const smtpPort = relayPort(config, DEVELOPMENT_RELAY_PORT);
  const relay = smtpPort === undefined ? undefined : await startSmtpRelay({ ...core, services }, smtpPort);
  if (relay) shutdown.add('SMTP relay', relay.close);

  const base = `http://localhost:${config.port}`;
  const lines = [
    '',
    'Herald is running',
    `  API            ${base}`,
    `  API docs       ${base}/docs  (OpenAPI: ${base}/openapi.json)`,
    `  Temporal UI    ${temporal.uiUrl ?? `not available (${temporal.kind === 'external' ? 'external Temporal' : 'in-memory test server'})`}`,
    `  Temporal       ${temporal.address} (${temporal.kind})`,
    `  Postgres       ${embedded ? `embedded, data in ${config.dataDir}` : 'DATABASE_URL'}`,
    `  SMTP relay     ${relay ? `localhost:${relay.port}  (user herald, password a project's secret key, STARTTLS)` : 'off (SMTP_RELAY_PORT=off)'}`,
    `  Mail transport ${config.transport}${config.transport === 'outbox' ? `  (messages at ${base}/outbox; for trying Herald alone: configure SES or SMTP before others sign up)` : ''}`,
    ...(config.mailEventsSecretGenerated ? [`  Mail events    ${base}/webhooks/mail-events?secret=${config.mailEventsSecret}  (generated, kept in DATA_DIR/secrets.json)`] : []),
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
});
