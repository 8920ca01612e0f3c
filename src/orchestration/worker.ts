import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { logger } from '../logger';
import { workflowCode, type WorkflowBundleMode } from './workflow-bundle';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** Workflows kept in memory between tasks (the SDK's default when unset); 0 turns off sticky execution. */
  maxCachedWorkflows?: number;
  /** Where the workflow code comes from (WORKFLOW_BUNDLE); `auto` when unset. */
  workflowBundle?: WorkflowBundleMode;
  /** A prebuilt bundle at this path instead (a bench's, built in a process of its own). */
  workflowBundlePath?: string;
  /** A bundle's code, already built in this process (one bundle for several workers). */
  workflowBundleCode?: string;
  /** Activities run at once at most (the SDK's default when unset). */
  maxConcurrentActivityTaskExecutions?: number;
  /** Local activities run at once at most (the SDK's default when unset). */
  maxConcurrentLocalActivityExecutions?: number;
  /** Workflow tasks run at once at most (the SDK's default, 40, when unset). */
  maxConcurrentWorkflowTaskExecutions?: number;
  /** Workflow task polls at once at most (the SDK's default, 10, when unset). */
  workflowTaskPolls?: number;
  /** The share of those polls that asks the task queue rather than this worker's sticky queue (the SDK's default, 0.2, when unset). */
  nonStickyToStickyPollRatio?: number;
}

/** A worker for Herald's workflows (the prebuilt bundle, or bundled from `workflows/` now in a process of its own) and the given activities; call run() to poll. */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const code = options.workflowBundleCode
    ? { workflowBundle: { code: options.workflowBundleCode } }
    : options.workflowBundlePath
      ? { workflowBundle: { codePath: options.workflowBundlePath } }
      : await workflowCode(options.workflowBundle ?? 'auto');
  if ('codePath' in code.workflowBundle) logger.info(`Worker runs the prebuilt workflow bundle ${code.workflowBundle.codePath}`);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...code,
    activities: options.activities,
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
    ...(options.maxConcurrentActivityTaskExecutions === undefined ? {} : { maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions }),
    ...(options.maxConcurrentLocalActivityExecutions === undefined ? {} : { maxConcurrentLocalActivityExecutions: options.maxConcurrentLocalActivityExecutions }),
    ...(options.maxConcurrentWorkflowTaskExecutions === undefined ? {} : { maxConcurrentWorkflowTaskExecutions: options.maxConcurrentWorkflowTaskExecutions }),
    ...(options.workflowTaskPolls === undefined ? {} : { workflowTaskPollerBehavior: { type: 'simple-maximum' as const, maximum: options.workflowTaskPolls } }),
    ...(options.nonStickyToStickyPollRatio === undefined ? {} : { nonStickyToStickyPollRatio: options.nonStickyToStickyPollRatio }),
  });
}
