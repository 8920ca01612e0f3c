import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { deliverEmail } from '../../workflows/delivery';
import { emailWorkflowId } from '../../workflows/shared';
import { useTimeSkipping } from '../support/temporal';


describe('deliverEmail workflow', () => {
  const temporal = useTimeSkipping();

  async function run(deliver: (emailId: string) => Promise<string>, during: (workflowId: string) => Promise<void>) {
    const markEmailFailed = jest.fn(async (_emailId: string, _reason: string) => undefined);
    const workflowId = emailWorkflowId(randomUUID());
    const outcome = await temporal.withWorker({ deliver, markEmailFailed }, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(deliverEmail, { workflowId, taskQueue, args: ['email-1'] });
      await during(workflowId);
      return handle.result().then(
        (value) => ({ value, error: undefined }),
        (error: Error) => ({ value: undefined, error }),
      );
    });
    return { outcome, markEmailFailed };
  }

  it('retries transient failures with backoff over simulated minutes, then sends', async () => {
    let calls = 0;
    const { outcome, markEmailFailed } = await run(async () => {
      calls += 1;
      if (calls < 6) throw new Error('Throttling: rate exceeded');
      return 'SENT';
    }, async () => undefined);
    expect(outcome.value).toBe('SENT');
    expect(calls).toBe(6);
    expect(markEmailFailed).not.toHaveBeenCalled();
  });

  it('marks the email FAILED at once on a permanent failure', async () => {
    let calls = 0;
    const { outcome, markEmailFailed } = await run(async () => {
      calls += 1;
      throw ApplicationFailure.create({ message: 'Email address is not verified.', type: 'PermanentMailError', nonRetryable: true });
    }, async () => undefined);
    expect(outcome.error).toBeDefined();
    expect(calls).toBe(1);
    expect(markEmailFailed).toHaveBeenCalledWith('email-1', 'Email address is not verified.');
  });

  it('marks the email FAILED as cancelled when an operator cancels the execution', async () => {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const deliveryStarted = new Promise<void>((resolve) => (started = resolve));
    const { outcome, markEmailFailed } = await run(
      () => new Promise<string>((_resolve, reject) => {
        release = () => reject(new Error('Throttling'));
        started();
      }),
      async (workflowId) => {
        await deliveryStarted;
        await temporal.env.client.workflow.getHandle(workflowId).cancel();
        release();
      },
    );
    expect(outcome.error).toBeDefined();
    expect(markEmailFailed).toHaveBeenCalledWith('email-1', 'Delivery was cancelled');
  });
});
