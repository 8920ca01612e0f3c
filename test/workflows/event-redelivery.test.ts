import { randomUUID } from 'node:crypto';
import type { RedeliveryResult } from '../../src/events/redelivery';
import { eventRedelivery } from '../../workflows/event-redelivery';
import { useTimeSkipping } from '../support/temporal';
import { until } from '../support/wait';

type PassResult = RedeliveryResult & { more: boolean };
const pass = (more: boolean, failed = 0): PassResult => ({ delivered: more ? 100 : 1, failed, abandoned: 0, more });

describe('event-redelivery workflow', () => {
  const temporal = useTimeSkipping();

  async function run(redeliverEvents: () => Promise<PassResult>, check: () => Promise<void>) {
    await temporal.withWorker({ redeliverEvents }, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(eventRedelivery, { workflowId: `event-redelivery-${randomUUID()}`, taskQueue });
      await check();
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test finished');
    });
  }

  it('passes again at once after a full pass, else every 15 seconds', async () => {
    const results = [pass(true), pass(true), pass(false)];
    const redeliverEvents = jest.fn(async () => results.shift() ?? pass(false));
    await run(redeliverEvents, async () => {
      // The two full passes and the one after them run back to back, without a timer between
      // (awaited in real time first: a new worker's first task can take seconds on a busy machine).
      await until(async () => redeliverEvents.mock.calls.length, (calls) => calls >= 3, 'three passes');
      await temporal.env.sleep('5 seconds');
      expect(redeliverEvents).toHaveBeenCalledTimes(3);
      await temporal.env.sleep('15 seconds');
      expect(redeliverEvents).toHaveBeenCalledTimes(4);
      await temporal.env.sleep('30 seconds');
      expect(redeliverEvents).toHaveBeenCalledTimes(6);
    });
  });

  it('keeps running when a pass fails after its retries', async () => {
    let calls = 0;
    const redeliverEvents = jest.fn(async () => {
      if (++calls <= 3) throw new Error('database unavailable');
      return pass(false);
    });
    await run(redeliverEvents, async () => {
      await temporal.env.sleep('1 minute');
      // Three failed attempts (the retry policy's maximum), then a pass every 15 seconds.
      expect(redeliverEvents.mock.calls.length).toBeGreaterThanOrEqual(5);
    });
  });
});
