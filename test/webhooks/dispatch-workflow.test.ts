import { randomUUID } from 'node:crypto';
import { webhookDispatch } from '../../workflows/webhook-dispatch';
import { useTimeSkipping } from '../support/temporal';

describe('webhook-dispatch workflow', () => {
  const temporal = useTimeSkipping();

  async function run(startWebhookDeliveries: () => Promise<{ started: number; more: boolean }>, check: () => Promise<void>) {
    await temporal.withWorker({ startWebhookDeliveries }, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(webhookDispatch, { workflowId: `webhook-dispatch-${randomUUID()}`, taskQueue });
      await check();
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test finished');
    });
  }

  it('passes again at once after a full pass, else every second', async () => {
    const results = [{ started: 200, more: true }, { started: 200, more: true }, { started: 3, more: false }];
    const pass = jest.fn(async () => results.shift() ?? { started: 0, more: false });
    await run(pass, async () => {
      await temporal.env.sleep('500 milliseconds');
      expect(pass).toHaveBeenCalledTimes(3);
      await temporal.env.sleep('10 seconds');
      expect(pass.mock.calls.length).toBeGreaterThanOrEqual(11);
      expect(pass.mock.calls.length).toBeLessThanOrEqual(15);
    });
  });

  it('keeps running when a pass fails after its retries', async () => {
    let calls = 0;
    const pass = jest.fn(async () => {
      if (++calls <= 3) throw new Error('database unavailable');
      return { started: 0, more: false };
    });
    await run(pass, async () => {
      await temporal.env.sleep('1 minute');
      expect(pass.mock.calls.length).toBeGreaterThanOrEqual(5);
    });
  });
});
