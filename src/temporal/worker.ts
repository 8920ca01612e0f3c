import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** Workflows kept in memory between tasks (the SDK's default when unset); 0 turns off sticky execution. */
  maxCachedWorkflows?: number;
}

/** A worker for Herald's workflows (bundled from `workflows/`) and the given activities; call run() to poll. */
export function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: options.activities,
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
  });
}
