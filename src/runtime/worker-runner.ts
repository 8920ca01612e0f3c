import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { AppDeps } from '../composition';
import { logger } from '../logger';
import { routeTemporalLogs } from '../orchestration/logging';
import { createWorkers, runWorkers, shutdownWorkers } from '../orchestration/workers';
import type { Shutdown } from './shutdown';

/** Connects the workers (main and webhook task queues) to Temporal and runs them until shutdown; a worker that dies stops the process. */
export async function runWorker(core: AppDeps, address: string, shutdown: Shutdown): Promise<void> {
  const { config } = core;
  routeTemporalLogs();
  const connection = await NativeConnection.connect({ address });
  shutdown.add('worker connection', () => connection.close());
  const workers = await createWorkers({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle: config.workflowBundle,
    activities: createActivities(core),
    webhookConcurrency: config.webhookConcurrency,
  });
  const running = runWorkers(workers);
  running.catch((err: unknown) => {
    logger.fatal({ err }, 'Temporal worker stopped unexpectedly');
    void shutdown.run().then(() => process.exit(1));
  });
  shutdown.add('worker', async () => {
    shutdownWorkers(workers);
    await running.catch(() => undefined);
  });
}
