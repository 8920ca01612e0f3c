import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { AppDeps } from '../composition';
import { logger } from '../logger';
import { routeTemporalLogs } from '../orchestration/logging';
import { createWorker } from '../orchestration/worker';
import type { Shutdown } from './shutdown';

/** Connects a worker to Temporal and runs it until shutdown; a worker that dies stops the process. */
export async function runWorker(core: AppDeps, address: string, shutdown: Shutdown): Promise<void> {
  const { config } = core;
  routeTemporalLogs();
  const connection = await NativeConnection.connect({ address });
  shutdown.add('worker connection', () => connection.close());
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle: config.workflowBundle,
    activities: createActivities(core),
  });
  const running = worker.run();
  running.catch((err: unknown) => {
    logger.fatal({ err }, 'Temporal worker stopped unexpectedly');
    void shutdown.run().then(() => process.exit(1));
  });
  shutdown.add('worker', async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  });
}
