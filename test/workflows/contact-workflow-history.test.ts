import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { runWorkflowExecutionV2, type ContactExecutionInput } from '../../workflows/contact-workflow';
import { eventReceived, executionWorkflowId, type ExecutionInput, type ExecutionRef, type GraphStep, type GraphTransition } from '../../workflows/shared';
import { recordAndRunStepWith } from '../../activities/workflow-steps';
import { bundleWorkflows, useTimeSkipping } from '../support/temporal';

const step = (id: string, type: GraphStep['type'], config: Record<string, unknown> = {}): GraphStep => ({ id, type, name: id, config });
const edge = (fromStepId: string, toStepId: string, branch: 'yes' | 'no' | null = null): GraphTransition => ({ fromStepId, toStepId, branch });

/**
 * `contact-workflow-activities.bin`: the history of an execution recorded before the
 * `contact-workflow-local-steps` patch (every call an activity task) over DELAY 1 day ->
 * CONDITION -> WAIT_FOR_EVENT (1 hour, timed out) -> WEBHOOK -> UPDATE_CONTACT -> SEND_EMAIL -> EXIT.
 */
const PRE_PATCH_HISTORY = path.join(__dirname, 'histories', 'contact-workflow-activities.bin');

/** An execution of one contact, without its graph. */
const execution = (executionId: string): ExecutionRef => ({ executionId, projectId: 'project-1', workflowId: 'workflow-1', contactId: 'contact-1', context: {} });

/** Activities that succeed at once. */
const activities = {
  recordExecutionStep: async (_executionId: string, _stepId: string): Promise<boolean> => true,
  finishExecution: async (_executionId: string, _status: string, ..._rest: unknown[]): Promise<boolean> => true,
  sendWorkflowEmail: async (): Promise<unknown> => ({ emailId: 'email-1', outcome: 'SENT' }),
  evaluateCondition: async () => true,
  callWebhook: async () => ({ status: 200 }),
  updateWorkflowContact: async () => true,
};

/** The activities with some replaced, and recordAndRunStep going through them as the worker's goes through the real ones. */
const withActivities = (overrides: Partial<typeof activities> = {}) => {
  const calls = { ...activities, ...overrides };
  return { ...calls, recordAndRunStep: recordAndRunStepWith(calls) };
};

/**
 * Histories recorded before `contact-workflow-recorded-steps`, with local activities: DELAY 1 day ->
 * CONDITION -> WAIT_FOR_EVENT (1 hour, timed out) -> WEBHOOK -> UPDATE_CONTACT -> SEND_EMAIL -> EXIT,
 * and an entry DELAY waited out by the start delay -> SEND_EMAIL -> EXIT.
 */
const LOCAL_STEPS_HISTORY = path.join(__dirname, 'histories', 'contact-workflow-local-steps.bin');
const ENTRY_DELAY_HISTORY = path.join(__dirname, 'histories', 'contact-workflow-entry-delay.bin');
/** Recorded before runWorkflowExecutionV2: a SEND_EMAIL whose five local attempts failed, then two of its activity task's. */
const LOCAL_FALLBACK_HISTORY = path.join(__dirname, 'histories', 'contact-workflow-local-fallback.bin');
/**
 * runWorkflowExecutionV2's histories recorded before a SEND_EMAIL step's call wrote the end after
 * it, of the two graphs of the tests below (execution ids ...0002 and ...0003): the end by a
 * finishExecution call of its own.
 */
const V2_STEPS_HISTORY = path.join(__dirname, 'histories', 'contact-workflow-v2-steps.bin');
const V2_ENTRY_DELAY_HISTORY = path.join(__dirname, 'histories', 'contact-workflow-v2-entry-delay.bin');

/** The local activities a history ran, in order, by their markers. */
function localActivities(history: proto.api.history.v1.IHistory): string[] {
  return history.events!.flatMap((event) => {
    const details = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    if (event.markerRecordedEventAttributes?.markerName !== 'core_local_activity' || !details) return [];
    return [(JSON.parse(Buffer.from(details).toString()) as { activity_type: string }).activity_type];
  });
}

describe('contact workflow histories: runWorkflowExecution (patched) and runWorkflowExecutionV2', () => {
  const temporal = useTimeSkipping();
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    bundle = await bundleWorkflows();
  });

  const replay = (history: proto.api.history.v1.IHistory, workflowId: string) =>
    Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'contact-workflow' }, history, workflowId);

  /** Runs an execution as runWorkflowExecutionV2 until it EXITED; answers its history, the steps recorded by recordExecutionStep and the finishExecution calls. */
  const runToExit = async (input: ContactExecutionInput, startDelay?: '1 day') => {
    const recorded: string[] = [];
    const finished: unknown[][] = [];
    const history = await temporal.withWorker(
      withActivities({
        recordExecutionStep: async (_executionId: string, stepId: string) => recorded.push(stepId) > 0,
        finishExecution: async (...args: unknown[]) => finished.push(args) > 0,
      }),
      async (taskQueue) => {
        const workflowId = executionWorkflowId(input.executionId);
        const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input], ...(startDelay ? { startDelay } : {}) });
        expect(await handle.result()).toBe('EXITED');
        return handle.fetchHistory();
      },
    );
    return { history, recorded, finished };
  };

  it('replays an execution recorded before the patch, which keeps an activity task per call', async () => {
    const history = proto.api.history.v1.History.decode(readFileSync(PRE_PATCH_HISTORY));
    const scheduled = history.events!.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled).toEqual([
      'recordExecutionStep', 'recordExecutionStep', 'evaluateCondition', 'recordExecutionStep', 'recordExecutionStep', 'callWebhook',
      'recordExecutionStep', 'updateWorkflowContact', 'recordExecutionStep', 'sendWorkflowEmail', 'recordExecutionStep', 'finishExecution',
    ]);
    await expect(replay(history, executionWorkflowId('00000000-0000-4000-8000-000000000001'))).resolves.toBeUndefined();
  });

  it('replays executions recorded before runWorkflowExecutionV2, with local activities and the entry-delay patch', async () => {
    const localSteps = proto.api.history.v1.History.decode(readFileSync(LOCAL_STEPS_HISTORY));
    expect(localActivities(localSteps)).toEqual([
      'recordExecutionStep', 'recordExecutionStep', 'evaluateCondition', 'recordExecutionStep', 'recordExecutionStep',
      'recordExecutionStep', 'updateWorkflowContact', 'recordExecutionStep', 'sendWorkflowEmail', 'recordExecutionStep', 'finishExecution',
    ]);
    await expect(replay(localSteps, executionWorkflowId('00000000-0000-4000-8000-000000000011'))).resolves.toBeUndefined();
    const entryDelay = proto.api.history.v1.History.decode(readFileSync(ENTRY_DELAY_HISTORY));
    expect(localActivities(entryDelay)).toEqual(['recordExecutionStep', 'sendWorkflowEmail', 'recordExecutionStep', 'finishExecution']);
    expect(entryDelay.events).toHaveLength(13);
    await expect(replay(entryDelay, executionWorkflowId('00000000-0000-4000-8000-000000000012'))).resolves.toBeUndefined();
    const fallback = proto.api.history.v1.History.decode(readFileSync(LOCAL_FALLBACK_HISTORY));
    const patches = fallback.events!.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch').length;
    expect(patches).toBe(2);
    expect(fallback.events!.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name)).toEqual([
      'sendWorkflowEmail',
    ]);
    await expect(replay(fallback, executionWorkflowId('00000000-0000-4000-8000-000000000013'))).resolves.toBeUndefined();
  });

  it('replays runWorkflowExecutionV2 histories recorded before the last step wrote the end in its call: the end by a call of its own', async () => {
    const steps = proto.api.history.v1.History.decode(readFileSync(V2_STEPS_HISTORY));
    expect(localActivities(steps)).toEqual(['recordExecutionStep', 'recordAndRunStep', 'recordExecutionStep', 'recordAndRunStep', 'recordAndRunStep', 'finishExecution']);
    await expect(replay(steps, executionWorkflowId('00000000-0000-4000-8000-000000000002'))).resolves.toBeUndefined();
    const entryDelay = proto.api.history.v1.History.decode(readFileSync(V2_ENTRY_DELAY_HISTORY));
    expect(localActivities(entryDelay)).toEqual(['recordAndRunStep', 'finishExecution']);
    expect(entryDelay.events).toHaveLength(7);
    await expect(replay(entryDelay, executionWorkflowId('00000000-0000-4000-8000-000000000003'))).resolves.toBeUndefined();
  });

  it('records each CONDITION, UPDATE_CONTACT and SEND_EMAIL step with its work and the EXIT step with the end, in one local activity each (the end in the last step\'s), webhooks as activity tasks, without patch markers; its history replays', async () => {
    const input: ExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000002'),
      graph: {
        steps: [
          step('delay', 'DELAY', { amount: 1, unit: 'days' }),
          step('check', 'CONDITION', { condition: { logic: 'AND', groups: [] } }),
          step('hook', 'WEBHOOK', { url: 'https://hooks.example.com/x' }),
          step('update', 'UPDATE_CONTACT', { data: { plan: 'free' } }),
          step('send', 'SEND_EMAIL', { templateId: 'template-1' }),
          step('exit', 'EXIT'),
        ],
        transitions: [edge('delay', 'check'), edge('check', 'hook', 'yes'), edge('hook', 'update'), edge('update', 'send'), edge('send', 'exit')],
      },
    };
    const workflowId = executionWorkflowId(input.executionId);
    const { history, recorded, finished } = await runToExit(input);
    expect(recorded).toEqual(['delay', 'check', 'hook', 'update', 'send']);
    expect(finished).toEqual([[input.executionId, 'EXITED', null, 'exit']]);
    const events = history.events!;
    const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled).toEqual(['callWebhook']);
    expect(localActivities(history)).toEqual(['recordExecutionStep', 'recordAndRunStep', 'recordExecutionStep', 'recordAndRunStep', 'recordAndRunStep']);
    expect(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')).toHaveLength(0);
    expect(events.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes)).toHaveLength(0);
    // A workflow task at the start, after the timer and after the webhook's activity task.
    expect(events.filter((event) => event.workflowTaskCompletedEventAttributes)).toHaveLength(3);
    await expect(replay(history, workflowId)).resolves.toBeUndefined();
  });

  it('goes on from the step after an entry DELAY that its start delay waited out, in one workflow task of one local activity that also ends it; its history replays', async () => {
    const input: ContactExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000003'),
      entryDelayed: true,
      graph: {
        steps: [step('delay', 'DELAY', { amount: 1, unit: 'days' }), step('send', 'SEND_EMAIL', { templateId: 'template-1' }), step('exit', 'EXIT')],
        transitions: [edge('delay', 'send'), edge('send', 'exit')],
      },
    };
    const workflowId = executionWorkflowId(input.executionId);
    const { history, recorded, finished } = await runToExit(input, '1 day');
    expect(recorded).toEqual(['send']);
    expect(finished).toEqual([[input.executionId, 'EXITED', null, 'exit']]);
    const events = history.events!;
    expect(localActivities(history)).toEqual(['recordAndRunStep']);
    expect(events.filter((event) => event.timerStartedEventAttributes)).toHaveLength(0);
    expect(events.filter((event) => event.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    // Started, the workflow task (scheduled, started, completed), one marker, completed.
    expect(events).toHaveLength(6);
    await expect(replay(history, workflowId)).resolves.toBeUndefined();
  });

  it('ends an execution in the call of an UPDATE_CONTACT step at the end of its path, STOPPED when the record had ended meanwhile', async () => {
    const input: ExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000008'),
      graph: { steps: [step('update', 'UPDATE_CONTACT', { data: { plan: 'free' } })], transitions: [] },
    };
    const workflowId = executionWorkflowId(input.executionId);
    const finished: unknown[][] = [];
    // A cancel through the API ended the record while the step ran.
    const finishExecution = async (...args: unknown[]) => finished.push(args) < 0;
    const { outcome, history } = await temporal.withWorker(withActivities({ finishExecution }), async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input] });
      return { outcome: await handle.result(), history: await handle.fetchHistory() };
    });
    expect(outcome).toBe('STOPPED');
    expect(finished).toEqual([[input.executionId, 'COMPLETED']]);
    expect(localActivities(history)).toEqual(['recordAndRunStep']);
    await expect(replay(history, workflowId)).resolves.toBeUndefined();
  });

  it('hands a call whose local attempts are used up to an activity task and, once those are used up too, writes the record by a call of its own and runs the step again; its history replays', async () => {
    const input: ExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000004'),
      graph: { steps: [step('send', 'SEND_EMAIL', { templateId: 'template-1' })], transitions: [] },
    };
    const workflowId = executionWorkflowId(input.executionId);
    const attempts: string[] = [];
    const recorded: string[] = [];
    // SES away for the combined call's 5 local attempts and its activity task's 16.
    const sendWorkflowEmail = async () => {
      attempts.push(Context.current().info.isLocal ? 'local' : 'task');
      if (attempts.length <= 5 + 16) throw ApplicationFailure.create({ message: 'SES is away' });
      return { emailId: 'email-1', outcome: 'SENT' };
    };
    const recordExecutionStep = async (_executionId: string, stepId: string) => recorded.push(stepId) > 0;
    const history = await temporal.withWorker(withActivities({ sendWorkflowEmail, recordExecutionStep }), async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input] });
      expect(await handle.result()).toBe('COMPLETED');
      return handle.fetchHistory();
    });
    expect(attempts).toEqual([...Array(5).fill('local'), ...Array(16).fill('task'), 'local']);
    // Once by each of the combined call's 21 attempts, then by the record's own call.
    expect(recorded).toEqual(Array(22).fill('send'));
    const events = history.events!;
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name)).toEqual([
      'recordAndRunStep',
    ]);
    // The combined call's local attempts (their marker holds the last failure), then the record's call, the send's and the end's.
    expect(localActivities(history)).toEqual(['recordAndRunStep', 'recordExecutionStep', 'sendWorkflowEmail', 'finishExecution']);
    await expect(replay(history, workflowId)).resolves.toBeUndefined();
  });

  it('fails a step for good at once when its local activity fails for good, without an activity task', async () => {
    const input: ExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000005'),
      graph: { steps: [step('send', 'SEND_EMAIL', { templateId: 'template-1' })], transitions: [] },
    };
    const workflowId = executionWorkflowId(input.executionId);
    let calls = 0;
    const sendWorkflowEmail = async () => {
      calls++;
      throw ApplicationFailure.create({ message: 'The template is gone', nonRetryable: true });
    };
    const finished: unknown[][] = [];
    await temporal.withWorker(
      withActivities({ sendWorkflowEmail, finishExecution: async (...args: unknown[]) => finished.push(args) > 0 }),
      async (taskQueue) => {
        const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input] });
        await expect(handle.result()).rejects.toThrow();
      },
    );
    expect(calls).toBe(1);
    expect(finished).toEqual([[input.executionId, 'FAILED', 'The template is gone']]);
  });

  it('waits out the rest of an entry DELAY when an event starts the workflow before its start delay ends', async () => {
    const input: ContactExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000006'),
      entryDelayed: true,
      graph: {
        steps: [step('delay', 'DELAY', { amount: 1, unit: 'days' }), step('wait', 'WAIT_FOR_EVENT', { eventName: 'paid', timeout: { amount: 1, unit: 'hours' } })],
        transitions: [edge('delay', 'wait')],
      },
    };
    const workflowId = executionWorkflowId(input.executionId);
    const recordedAt: number[] = [];
    await temporal.withWorker(
      withActivities({ recordExecutionStep: async () => recordedAt.push(await temporal.env.currentTimeMs()) > 0 }),
      async (taskQueue) => {
        const startedAt = await temporal.env.currentTimeMs();
        const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input], startDelay: '1 day' });
        await handle.signal(eventReceived, { id: 'event-1', name: 'paid', data: {} });
        expect(await handle.result()).toBe('COMPLETED');
        // The event arrived during the DELAY: it does not count for the WAIT_FOR_EVENT after it.
        expect(recordedAt).toHaveLength(1);
        expect(recordedAt[0] - startedAt).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
      },
    );
  });

  it('waits only what was left of its entry DELAY when started with entryDelayLeftMs (a record whose DELAY began before), also when woken early', async () => {
    const input: ContactExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000008'),
      entryDelayed: true,
      entryDelayLeftMs: 2 * 60 * 60 * 1000,
      graph: {
        steps: [step('delay', 'DELAY', { amount: 1, unit: 'days' }), step('wait', 'WAIT_FOR_EVENT', { eventName: 'paid', timeout: { amount: 1, unit: 'hours' } })],
        transitions: [edge('delay', 'wait')],
      },
    };
    const recordedAt: number[] = [];
    await temporal.withWorker(
      withActivities({ recordExecutionStep: async () => recordedAt.push(await temporal.env.currentTimeMs()) > 0 }),
      async (taskQueue) => {
        const startedAt = await temporal.env.currentTimeMs();
        const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, {
          workflowId: executionWorkflowId(input.executionId),
          taskQueue,
          args: [input],
          startDelay: '2 hours',
        });
        await handle.signal(eventReceived, { id: 'event-1', name: 'paid', data: {} });
        expect(await handle.result()).toBe('COMPLETED');
        expect(recordedAt).toHaveLength(1);
        expect(recordedAt[0] - startedAt).toBeGreaterThanOrEqual(2 * 60 * 60 * 1000);
        expect(recordedAt[0] - startedAt).toBeLessThan(24 * 60 * 60 * 1000);
        await expect(replay(await handle.fetchHistory(), handle.workflowId)).resolves.toBeUndefined();
      },
    );
  });

  it('ends CANCELLED without a step or a send when cancelled during its start delay', async () => {
    const input: ContactExecutionInput = {
      ...execution('00000000-0000-4000-8000-000000000007'),
      entryDelayed: true,
      graph: {
        steps: [step('delay', 'DELAY', { amount: 1, unit: 'days' }), step('send', 'SEND_EMAIL', { templateId: 'template-1' })],
        transitions: [edge('delay', 'send')],
      },
    };
    const workflowId = executionWorkflowId(input.executionId);
    const calls: string[] = [];
    await temporal.withWorker(
      withActivities({
        recordExecutionStep: async (_executionId: string, stepId: string) => calls.push(`record ${stepId}`) > 0,
        sendWorkflowEmail: async () => {
          calls.push('send');
          return { emailId: 'email-1', outcome: 'SENT' };
        },
        finishExecution: async (_executionId: string, status: string) => calls.push(`finish ${status}`) > 0,
      }),
      async (taskQueue) => {
        const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input], startDelay: '1 day' });
        await handle.cancel();
        await expect(handle.result()).rejects.toThrow();
      },
    );
    expect(calls).toEqual(['finish CANCELLED']);
  });
});
