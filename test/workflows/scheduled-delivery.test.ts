import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { deliverEmail } from '../../workflows/delivery';
import { emailWorkflowId, scheduledEmailCancelled } from '../../workflows/shared';
import { bundleWorkflows, useTimeSkipping } from '../support/temporal';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Histories recorded before scheduled sends, by the deliverEmail that took the email id alone:
 * `delivery-sent.bin` (a send retried after throttling, then SENT), `delivery-failed.bin` (a
 * permanent refusal, the email marked FAILED).
 */
const HISTORIES: [file: string, emailId: string][] = [
  ['delivery-sent.bin', '00000000-0000-4000-8000-0000000000a1'],
  ['delivery-failed.bin', '00000000-0000-4000-8000-0000000000a2'],
];

describe('deliverEmail with scheduledAt', () => {
  const temporal = useTimeSkipping();
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    bundle = await bundleWorkflows();
  });

  /** Activities that record what was called, and when in workflow time; `release` answers the email's status after release. */
  function activities(release: () => Promise<string> = async () => 'QUEUED') {
    const calls: { name: string; at: number }[] = [];
    const called = async (name: string) => calls.push({ name, at: await temporal.env.currentTimeMs() });
    return {
      calls,
      names: () => calls.map((call) => call.name),
      implementations: {
        deliver: async () => (await called('deliver')) && 'SENT',
        markEmailFailed: async () => void (await called('markEmailFailed')),
        releaseScheduledEmail: async () => (await called('releaseScheduledEmail')) && release(),
        cancelScheduledEmail: async () => void (await called('cancelScheduledEmail')),
      },
    };
  }

  /** Waits (in real time) until the execution has started its timer. */
  async function sleeping(handle: WorkflowHandle): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const { events } = await handle.fetchHistory();
      if (events?.some((event) => event.timerStartedEventAttributes)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the execution never started its timer');
  }

  /** Starts the delivery of `email-1` scheduled `aheadMs` after the server's time; answers its handle and that time. */
  async function startScheduled(taskQueue: string, aheadMs: number) {
    const at = (await temporal.env.currentTimeMs()) + aheadMs;
    const handle = await temporal.env.client.workflow.start(deliverEmail, {
      workflowId: emailWorkflowId(randomUUID()),
      taskQueue,
      args: ['email-1', { scheduledAt: new Date(at).toISOString() }],
    });
    return { handle, at };
  }

  it('waits on a durable timer until scheduledAt, then releases and delivers the email; its history replays', async () => {
    const run = activities();
    const { result, history, scheduledAt, workflowId } = await temporal.withWorker(run.implementations, async (taskQueue) => {
      const { handle, at } = await startScheduled(taskQueue, 3 * DAY_MS);
      return { result: await handle.result(), history: await handle.fetchHistory(), scheduledAt: at, workflowId: handle.workflowId };
    });
    expect(result).toBe('SENT');
    expect(run.names()).toEqual(['releaseScheduledEmail', 'deliver']);
    expect(run.calls[0].at).toBeGreaterThanOrEqual(scheduledAt);
    expect(history.events!.filter((event) => event.timerStartedEventAttributes)).toHaveLength(1);
    await expect(Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'scheduled' }, history, workflowId)).resolves.toBeUndefined();
  });

  it('marks the email CANCELLED and sends nothing when an operator cancels the execution while it waits', async () => {
    const run = activities();
    const outcome = await temporal.withWorker(run.implementations, async (taskQueue) => {
      const { handle, at } = await startScheduled(taskQueue, 3 * DAY_MS);
      await sleeping(handle);
      await handle.cancel();
      return handle.result().then(
        () => 'completed',
        (error: Error) => (error.cause as Error | undefined)?.name,
      );
    });
    expect(outcome).toBe('CancelledFailure');
    expect(run.names()).toEqual(['cancelScheduledEmail']);
  });

  it('ends at once when signalled that the email was cancelled while it waits, leaving it CANCELLED', async () => {
    const run = activities();
    const result = await temporal.withWorker(run.implementations, async (taskQueue) => {
      const { handle, at } = await startScheduled(taskQueue, 3 * DAY_MS);
      await sleeping(handle);
      await handle.signal(scheduledEmailCancelled);
      return { value: await handle.result(), at };
    });
    expect(result.value).toBe('CANCELLED');
    expect(run.names()).toEqual(['cancelScheduledEmail']);
    expect(run.calls[0].at).toBeLessThan(result.at);
  });

  it('leaves the outcome to the release when the signal comes while the email is being released', async () => {
    let releasing: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (releasing = resolve));
    let finish: (status: string) => void = () => undefined;
    const run = activities(() => {
      releasing();
      return new Promise<string>((resolve) => (finish = resolve));
    });
    const result = await temporal.withWorker(run.implementations, async (taskQueue) => {
      const { handle, at } = await startScheduled(taskQueue, DAY_MS);
      // Awaiting the result lets the server skip to the time; the release then waits for `finish`.
      const result = handle.result();
      await started;
      await handle.signal(scheduledEmailCancelled);
      finish('CANCELLED');
      return result;
    });
    expect(result).toBe('CANCELLED');
    expect(run.names()).toEqual(['releaseScheduledEmail']);
  });

  it.each(['CANCELLED', 'FAILED', 'MISSING'])('ends without delivering when the email is %s at its time', async (status) => {
    const run = activities(async () => status);
    const result = await temporal.withWorker(run.implementations, async (taskQueue) => {
      const { handle, at } = await startScheduled(taskQueue, DAY_MS);
      return handle.result();
    });
    expect(result).toBe(status);
    expect(run.names()).toEqual(['releaseScheduledEmail']);
  });

  it.each(HISTORIES)('replays %s, recorded before scheduled sends', async (file, emailId) => {
    const history = proto.api.history.v1.History.decode(readFileSync(path.join(__dirname, 'histories', file)));
    const scheduled = history.events!.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled[0]).toBe('deliver');
    await expect(Worker.runReplayHistory({ workflowBundle: bundle, replayName: file }, history, emailWorkflowId(emailId))).resolves.toBeUndefined();
  });
});
