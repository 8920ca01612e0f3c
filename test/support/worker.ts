import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createActivities } from '../../activities';
import { loadConfig } from '../../src/config';
import { composeCore } from '../../src/composition';
import type { EventDispatcher } from '../../src/events/dispatcher';
import { logger } from '../../src/logger';
import { connectTemporal, type TemporalClient } from '../../src/orchestration/client';
import { routeTemporalLogs } from '../../src/orchestration/logging';
import { createWorkers, runWorkers, shutdownWorkers } from '../../src/orchestration/workers';
import { ensureSendLanes } from '../../src/orchestration/send-lanes';

/** The address of the Temporal test server the global setup started. */
export function testTemporalAddress(): string {
  return `127.0.0.1:${process.env.HERALD_TEST_TEMPORAL_PORT}`;
}

/** A client of the test server, as the API uses one. */
export type TestTemporal = TemporalClient;

/** Connects a Temporal client to the test server. */
export function connectTestTemporal(): Promise<TestTemporal> {
  return connectTemporal(testTemporalAddress(), 'default');
}

/** A Herald worker running in this process against the test server. */
export interface TestWorker {
  dispatcher: EventDispatcher;
  close(): Promise<void>;
}

/** Starts the real workers (workflows bundle and activities) on the configured task queue and its webhook queue, and that queue's send lanes; `env` overrides configuration. */
export async function startTestWorker(
  dataSource: DataSource,
  env: Record<string, string> = {},
  options: { maxCachedWorkflows?: number } = {},
): Promise<TestWorker> {
  const config = loadConfig({ ...process.env, ...env });
  routeTemporalLogs();
  logger.level = config.logLevel;
  const connection = await NativeConnection.connect({ address: testTemporalAddress() });
  const core = composeCore(config, dataSource, new Client({ connection, namespace: config.temporalNamespace }));
  const workers = await createWorkers({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    activities: createActivities(core),
    webhookConcurrency: config.webhookConcurrency,
    workflowTaskConcurrency: config.workflowTaskConcurrency,
    ...options,
  });
  const running = runWorkers(workers);
  await ensureSendLanes(core.temporal!, config.taskQueue);
  return {
    dispatcher: core.dispatcher,
    close: async () => {
      shutdownWorkers(workers);
      await running;
      await connection.close();
    },
  };
}
