import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { webhookDispatch } from '../../workflows/webhook-dispatch';
import { useTimeSkipping } from '../support/temporal';
import { until } from '../support/wait';

/** What a run of the dispatch workflow did, in order: `pass` per activity scheduled, `failed` per one that failed, `wait <ms>` per timer. */
async function steps(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event) => {
    if (event.activityTaskScheduledEventAttributes) return ['pass'];
    if (event.activityTaskFailedEventAttributes) return ['failed'];
    const timer = event.timerStartedEventAttributes;
    if (timer) return [`wait ${Number(timer.startToFireTimeout?.seconds ?? 0) * 1000 + Math.round((timer.startToFireTimeout?.nanos ?? 0) / 1e6)}ms`];
    return [];
  });
}

describe('webhook-dispatch workflow', () => {
  const temporal = useTimeSkipping();

  /** Runs the workflow until `pass` has been called `calls` times (skipping time a second at a time), then answers what it did. */
  async function run(pass: jest.Mock, calls: number): Promise<string[]> {
    return temporal.withWorker({ startWebhookDeliveries: pass }, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(webhookDispatch, { workflowId: `webhook-dispatch-${randomUUID()}`, taskQueue });
      await until(
        async () => {
          await temporal.env.sleep('1 second');
          return pass.mock.calls.length;
        },
        (made) => made >= calls,
        `${calls} passes`,
        120_000,
      );
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test finished');
      return steps(handle);
    });
  }

  it('passes again at once after a full pass, else after a second', async () => {
    const results = [{ started: 200, more: true }, { started: 200, more: true }, { started: 3, more: false }];
    const pass = jest.fn(async () => results.shift() ?? { started: 0, more: false });
    const done = await run(pass, 5);
    expect(done.slice(0, 7)).toEqual(['pass', 'pass', 'pass', 'wait 1000ms', 'pass', 'wait 1000ms', 'pass']);
  }, 150_000);

  it('keeps running when a pass fails after its retries', async () => {
    let calls = 0;
    const pass = jest.fn(async () => {
      if (++calls <= 3) throw new Error('database unavailable');
      return { started: 0, more: false };
    });
    const done = await run(pass, 5);
    expect(done.slice(0, 5)).toEqual(['pass', 'failed', 'wait 1000ms', 'pass', 'wait 1000ms']);
  }, 150_000);
});
