import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleWorkflows, useTimeSkipping } from '../support/temporal';
import { welcomeSeries } from './patching/v2';

/**
 * The README's policy for changing workflow code with executions in flight, shown on a
 * three-step series: v1 runs, v2 adds a step behind `patched()`, v3 deprecates the patch.
 */
describe('changing a workflow with executions in flight (patched / deprecatePatch)', () => {
  const temporal = useTimeSkipping();
  const bundles: Record<'v1' | 'v2' | 'v2-unpatched' | 'v3', WorkflowBundleWithSourceMap> = {} as never;
  const ran: string[] = [];
  const runStep = async (name: string) => {
    ran.push(name);
    return name;
  };

  beforeAll(async () => {
    for (const version of ['v1', 'v2', 'v2-unpatched', 'v3'] as const) {
      bundles[version] = await bundleWorkflows(require.resolve(`./patching/${version}`));
    }
  });

  /** Waits (in real time) until the execution has started its day-long timer. */
  async function sleeping(handle: WorkflowHandle<typeof welcomeSeries>): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { events } = await handle.fetchHistory();
      if (events?.some((event) => event.timerStartedEventAttributes)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the execution never started its timer');
  }

  const replay = (version: keyof typeof bundles, handle: WorkflowHandle<typeof welcomeSeries>) =>
    handle.fetchHistory().then((history) => Worker.runReplayHistory({ workflowBundle: bundles[version], replayName: version }, history, handle.workflowId));

  it('keeps an execution started on v1 on the old path under v2, sends new ones the new way, and lets v3 drop the old path', async () => {
    const taskQueue = `patching-${randomUUID()}`;
    const { client } = temporal.env;
    const start = () => client.workflow.start(welcomeSeries, { taskQueue, workflowId: `welcome/${randomUUID()}` });

    const inFlight = await temporal.withWorker({ runStep }, async () => {
      const handle = await start();
      await sleeping(handle);
      return handle;
    }, { taskQueue, workflowBundle: bundles.v1, maxCachedWorkflows: 0 });
    expect(ran).toEqual(['welcome']);

    // The new worker replays the v1 history from the start: patched() is false there.
    const [oldPath, newPath, newHandle] = await temporal.withWorker({ runStep }, async () => {
      const handle = await start();
      return [await inFlight.result(), await handle.result(), handle] as const;
    }, { taskQueue, workflowBundle: bundles.v2, maxCachedWorkflows: 0 });
    expect(oldPath).toEqual(['welcome', 'reminder']);
    expect(newPath).toEqual(['welcome', 'tips', 'reminder']);

    // Why the patch: the same change without it cannot replay what v1 recorded.
    await expect(replay('v2', inFlight)).resolves.toBeUndefined();
    await expect(replay('v2-unpatched', inFlight)).rejects.toThrow(/nondetermin/i);
    // deprecatePatch replays what v2 recorded, but not v1's: only once every v1 execution has ended.
    await expect(replay('v3', newHandle)).resolves.toBeUndefined();
    await expect(replay('v3', inFlight)).rejects.toThrow(/nondetermin/i);
  });
});
