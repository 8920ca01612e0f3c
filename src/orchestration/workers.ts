import { getHeapStatistics } from 'node:v8';
import type { Worker } from '@temporalio/worker';
import { webhookTaskQueue } from './task-queues';
import { createWorker, type CreateWorkerOptions } from './worker';
import { workflowCode } from './workflow-bundle';

/** The workers of one worker process: `main` on TEMPORAL_TASK_QUEUE, `webhooks` on its webhook queue. */
export interface HeraldWorkers {
  main: Worker;
  webhooks: Worker;
}

/**
 * Options of both workers; `webhookConcurrency` caps the webhook worker's activities
 * (WEBHOOK_CONCURRENCY), `workflowTaskConcurrency` the main worker's workflow tasks (WORKFLOW_TASK_CONCURRENCY).
 */
export interface HeraldWorkersOptions extends CreateWorkerOptions {
  webhookConcurrency: number;
  workflowTaskConcurrency: number;
}

/**
 * Workflow task polls the main worker keeps open at once, and the share of them that asks the
 * task queue rather than the worker's own sticky queue (the SDK's defaults: 10, of which 2). Most
 * executions (`wf-exec/...` whose steps run as local activities) and every delivery end in their
 * first workflow task, which comes from the task queue: with two polls there, each waiting for
 * the server's answer before the next task is taken, the worker took about 80 such tasks a
 * second however many it could run at once.
 */
const WORKFLOW_TASK_POLLS = 20;
const TASK_QUEUE_POLL_SHARE = 0.5;

/**
 * The workflows the SDK keeps in memory when not told otherwise: (heap MiB - 200) x 600 / 1024,
 * at least 10. A workflow task needs its workflow in that cache, so a worker given more task
 * slots than it caches workflows would hold the extra tasks waiting, their timeout running.
 */
function defaultWorkflowCacheSize(): number {
  const heapMiB = getHeapStatistics().heap_size_limit / 1024 / 1024;
  return Math.max(Math.floor((Math.max(heapMiB - 200, 0) * 600) / 1024), 10);
}

/**
 * Creates the main worker and the webhook worker on one workflow bundle (bundled once, in a
 * process of its own, when no prebuilt one is used); the webhook worker runs at most `webhookConcurrency` attempts at once.
 */
export async function createWorkers(options: HeraldWorkersOptions): Promise<HeraldWorkers> {
  const { webhookConcurrency, workflowTaskConcurrency, ...common } = options;
  let shared: CreateWorkerOptions = common;
  if (!common.workflowBundlePath && !common.workflowBundleCode) {
    const { workflowBundle } = await workflowCode(common.workflowBundle ?? 'auto');
    shared = 'code' in workflowBundle ? { ...common, workflowBundleCode: workflowBundle.code } : { ...common, workflowBundlePath: workflowBundle.codePath };
  }
  const cached = common.maxCachedWorkflows ?? defaultWorkflowCacheSize();
  // With no cache (0: no sticky execution) a task needs no place in it.
  const slots = cached === 0 ? workflowTaskConcurrency : Math.max(2, Math.min(workflowTaskConcurrency, cached));
  const main = await createWorker({
    ...shared,
    maxConcurrentWorkflowTaskExecutions: slots,
    workflowTaskPolls: Math.min(WORKFLOW_TASK_POLLS, slots),
    nonStickyToStickyPollRatio: TASK_QUEUE_POLL_SHARE,
  });
  const webhooks = await createWorker({
    ...shared,
    taskQueue: webhookTaskQueue(common.taskQueue),
    maxConcurrentActivityTaskExecutions: webhookConcurrency,
    maxConcurrentLocalActivityExecutions: webhookConcurrency,
  });
  return { main, webhooks };
}

/** Runs both workers; the promise settles once both stopped, and rejects (after stopping the other) when one fails. */
export async function runWorkers(workers: HeraldWorkers): Promise<void> {
  const all = [workers.main, workers.webhooks];
  const runs = all.map((worker) =>
    worker.run().catch((err: unknown) => {
      shutdownWorkers(workers);
      throw err;
    }),
  );
  const outcomes = await Promise.allSettled(runs);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Asks each running worker to stop (run() settles once its tasks are done). */
export function shutdownWorkers(workers: HeraldWorkers): void {
  for (const worker of [workers.main, workers.webhooks]) if (worker.getState() === 'RUNNING') worker.shutdown();
}
