import { NativeConnection } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { ConfigError, loadConfig } from '../../src/config';
import { createWorkers, runWorkers, shutdownWorkers } from '../../src/orchestration/workers';
import { testTemporalAddress } from '../support/worker';

/** The workers a worker process runs, as its configuration sets them up. */
describe("a worker process's workers", () => {
  const workersFor = async (env: Record<string, string>, options: { maxCachedWorkflows?: number } = {}) => {
    const config = loadConfig({ ...process.env, ...env });
    const connection = await NativeConnection.connect({ address: testTemporalAddress() });
    const workers = await createWorkers({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: `workers-test-${Date.now()}`,
      activities: {} as Activities,
      webhookConcurrency: config.webhookConcurrency,
      workflowTaskConcurrency: config.workflowTaskConcurrency,
      ...options,
    });
    const running = runWorkers(workers);
    const close = async () => {
      shutdownWorkers(workers);
      await running;
      await connection.close();
    };
    return { workers, close };
  };

  it('run WORKFLOW_TASK_CONCURRENCY workflow tasks at once on the main queue, with half of their 20 polls on the task queue', async () => {
    const { workers, close } = await workersFor({ WORKFLOW_TASK_CONCURRENCY: '64' });
    try {
      expect(workers.main.options.tuner.workflowTaskSlotSupplier).toMatchObject({ numSlots: 64 });
      expect(workers.main.options.nonStickyToStickyPollRatio).toBe(0.5);
      expect(workers.main.options.workflowTaskPollerBehavior).toMatchObject({ maximum: 20 });
      // The webhook queue keeps the SDK's defaults.
      expect(workers.webhooks.options.tuner.workflowTaskSlotSupplier).toMatchObject({ numSlots: 40 });
      expect(workers.webhooks.options.nonStickyToStickyPollRatio).toBe(0.2);
    } finally {
      await close();
    }
  });

  it('poll no more workflow tasks at once than they may run', async () => {
    const { workers, close } = await workersFor({ WORKFLOW_TASK_CONCURRENCY: '4' });
    try {
      expect(workers.main.options.tuner.workflowTaskSlotSupplier).toMatchObject({ numSlots: 4 });
      expect(workers.main.options.workflowTaskPollerBehavior).toMatchObject({ maximum: 4 });
    } finally {
      await close();
    }
  });

  it('run no more workflow tasks at once than they cache workflows', async () => {
    const { workers, close } = await workersFor({ WORKFLOW_TASK_CONCURRENCY: '64' }, { maxCachedWorkflows: 12 });
    try {
      expect(workers.main.options.tuner.workflowTaskSlotSupplier).toMatchObject({ numSlots: 12 });
      expect(workers.main.options.workflowTaskPollerBehavior).toMatchObject({ maximum: 12 });
    } finally {
      await close();
    }
  });

  it('refuse a WORKFLOW_TASK_CONCURRENCY below 2 or not a number, naming it', () => {
    for (const value of ['1', 'many']) {
      expect(() => loadConfig({ ...process.env, WORKFLOW_TASK_CONCURRENCY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ ...process.env, WORKFLOW_TASK_CONCURRENCY: value })).toThrow(/WORKFLOW_TASK_CONCURRENCY/);
    }
    expect(loadConfig({ ...process.env, WORKFLOW_TASK_CONCURRENCY: undefined }).workflowTaskConcurrency).toBe(200);
  });
});
