import type { Worker } from '@temporalio/worker';
import { webhookTaskQueue } from './task-queues';
import { createWorker, type CreateWorkerOptions } from './worker';
import { workflowCode } from './workflow-bundle';

/** The workers of one worker process: `main` on TEMPORAL_TASK_QUEUE, `webhooks` on its webhook queue. */
export interface HeraldWorkers {
  main: Worker;
  webhooks: Worker;
}

/** Options of both workers; `webhookConcurrency` caps the webhook worker's activities (WEBHOOK_CONCURRENCY). */
export interface HeraldWorkersOptions extends CreateWorkerOptions {
  webhookConcurrency: number;
}

/**
 * Creates the main worker and the webhook worker on one workflow bundle (bundled once, in a
 * process of its own, when no prebuilt one is used); the webhook worker runs at most `webhookConcurrency` attempts at once.
 */
export async function createWorkers(options: HeraldWorkersOptions): Promise<HeraldWorkers> {
  const { webhookConcurrency, ...common } = options;
  let shared: CreateWorkerOptions = common;
  if (!common.workflowBundlePath && !common.workflowBundleCode) {
    const { workflowBundle } = await workflowCode(common.workflowBundle ?? 'auto');
    shared = 'code' in workflowBundle ? { ...common, workflowBundleCode: workflowBundle.code } : { ...common, workflowBundlePath: workflowBundle.codePath };
  }
  const main = await createWorker(shared);
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
