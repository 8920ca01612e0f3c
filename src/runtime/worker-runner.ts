import { NativeConnection } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createActivities } from '../../activities';
import type { Config } from '../config';
import type { EventDispatcher } from '../events/dispatcher';
import { logger } from '../logger';
import type { Mailer } from '../mailer/types';
import { routeTemporalLogs } from '../temporal/logging';
import { createWorker } from '../temporal/worker';
import type { Shutdown } from './shutdown';

/** Connects a worker to Temporal and runs it until shutdown; a worker that dies stops the process. */
export async function runWorker(
  config: Config,
  address: string,
  deps: { dataSource: DataSource; mailer: Mailer; dispatcher: EventDispatcher },
  shutdown: Shutdown,
): Promise<void> {
  routeTemporalLogs();
  const connection = await NativeConnection.connect({ address });
  shutdown.add('worker connection', () => connection.close());
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    activities: createActivities({ ...deps, config }),
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
