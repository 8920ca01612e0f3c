import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { deliverEmail } from '../../workflows/delivery';
import { bundleWorkflows, createTimeSkippingEnv } from '../support/temporal';


describe('deliverEmail workflow', () => {
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    workflowBundle = await bundleWorkflows();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  async function run(deliver: (emailId: string) => Promise<string>, during: (workflowId: string) => Promise<void>) {
    const markEmailFailed = jest.fn(async (_emailId: string, _reason: string) => undefined);
    const taskQueue = `delivery-${randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities: { deliver, markEmailFailed } });
    const workflowId = `email/${randomUUID()}`;
    const outcome = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(deliverEmail, { workflowId, taskQueue, args: ['email-1'] });
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
        await env.client.workflow.getHandle(workflowId).cancel();
        release();
      },
    );
    expect(outcome.error).toBeDefined();
    expect(markEmailFailed).toHaveBeenCalledWith('email-1', 'Delivery was cancelled');
  });
});
