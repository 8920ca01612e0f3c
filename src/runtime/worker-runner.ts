import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { AppDeps } from '../composition';
import { logger } from '../logger';
import { routeTemporalLogs } from '../orchestration/logging';
import { createWorkers, runWorkers, shutdownWorkers } from '../orchestration/workers';
import { STUCK_AFTER_MS, watchWorkflowThreads } from '../orchestration/workflow-thread-guard';
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
    workflowTaskConcurrency: config.workflowTaskConcurrency,
  });
  // A workflow thread stuck in one call holds its workflows and would hold the shutdown: the
  // process ends at once, as a crash does, and Temporal gives their tasks to the next worker.
  const stopWatch = watchWorkflowThreads((threadId, forMs) => {
    logger.fatal({ threadId, forMs }, `A workflow thread has been inside one call for over ${STUCK_AFTER_MS / 1000} s; the worker process ends`);
    process.exit(70);
  });
  shutdown.add('workflow thread watch', async () => stopWatch());
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
