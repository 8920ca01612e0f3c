import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { StepType } from '../../src/entities/workflow';
import { recordAndRunStepWith } from '../../activities/workflow-steps';
import { runWorkflowExecutionV2 } from '../../workflows/contact-workflow';
import { eventReceived, executionWorkflowId, type ExecutionInput, type ExecutionRef, type Graph, type GraphStep, type GraphTransition } from '../../workflows/shared';
import { useTimeSkipping } from '../support/temporal';
import { until } from '../support/wait';

const DAY = 24 * 60 * 60 * 1000;

const step = (id: string, type: StepType, config: Record<string, unknown> = {}): GraphStep => ({ id, type, name: id, config });
const edge = (fromStepId: string, toStepId: string, branch: 'yes' | 'no' | null = null): GraphTransition => ({ fromStepId, toStepId, branch });

/** The step activities as plain functions recording their calls (and, for the email, the simulated time of each). */
function mockActivities(env: TestWorkflowEnvironment) {
  const sentAt: number[] = [];
  const activities = {
      recordExecutionStep: jest.fn(async (_executionId: string, _stepId: string, _status: string) => true),
      finishExecution: jest.fn(async (_executionId: string, _status: string, _error?: string | null, _stepId?: string) => true),
      sendWorkflowEmail: jest.fn(async (_execution: ExecutionRef, _stepId: string, _config: Record<string, unknown>) => {
        sentAt.push(await env.currentTimeMs());
        return { emailId: 'email-1', outcome: 'SENT' };
      }),
      evaluateCondition: jest.fn(async (_projectId: string, _contactId: string, _condition: unknown, _eventData?: Record<string, unknown>) => true),
      callWebhook: jest.fn(async (_execution: ExecutionRef, _stepId: string, _config: Record<string, unknown>) => ({ status: 200 })),
      updateWorkflowContact: jest.fn(async (_projectId: string, _contactId: string, _config: Record<string, unknown>) => true),
  };
  // Through the mocks above, as the worker's activity goes through the real ones.
  return { sentAt, activities: { ...activities, recordAndRunStep: recordAndRunStepWith(activities) } };
}

type Mocks = ReturnType<typeof mockActivities>;

describe('runWorkflowExecutionV2 workflow', () => {
  const temporal = useTimeSkipping();

  /** Runs one execution over the graph; `during` acts on it (signal, cancel) before the test waits for its end. */
  async function run(mocks: Mocks, graph: Graph, during: (workflowId: string) => Promise<void> = async () => undefined) {
    const input: ExecutionInput = {
      executionId: randomUUID(),
      projectId: 'project-1',
      workflowId: 'workflow-1',
      contactId: 'contact-1',
      context: { plan: 'pro' },
      eventName: 'signup',
      eventData: { source: 'ads' },
      graph,
    };
    const workflowId = executionWorkflowId(input.executionId);
    return temporal.withWorker(mocks.activities, async (taskQueue) => {
      const startedAt = await temporal.env.currentTimeMs();
      const handle = await temporal.env.client.workflow.start(runWorkflowExecutionV2, { workflowId, taskQueue, args: [input] });
      await during(workflowId);
      const outcome = await handle.result().then(
        (value) => ({ value, error: undefined }),
        (error: Error) => ({ value: undefined, error }),
      );
      return { outcome, input, startedAt };
    });
  }

  /** Waits (in real time, so simulated time stands still) until the execution recorded the step. */
  async function reached(mocks: Mocks, stepId: string) {
    await until(async () => mocks.activities.recordExecutionStep.mock.calls.some((call) => call[1] === stepId), Boolean, `the execution to record step ${stepId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it('sleeps a 3-day DELAY as WAITING, then sends the email as RUNNING and completes', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome, input, startedAt } = await run(mocks, {
      steps: [step('delay', 'DELAY', { amount: 3, unit: 'days' }), step('send', 'SEND_EMAIL', { templateId: 'template-1' })],
      transitions: [edge('delay', 'send')],
    });
    expect(outcome.value).toBe('COMPLETED');
    expect(mocks.activities.recordExecutionStep.mock.calls).toEqual([
      [input.executionId, 'delay', 'WAITING'],
      [input.executionId, 'send', 'RUNNING'],
    ]);
    expect(mocks.activities.sendWorkflowEmail).toHaveBeenCalledTimes(1);
    const [execution, stepId, config] = mocks.activities.sendWorkflowEmail.mock.calls[0];
    expect(stepId).toBe('send');
    expect(config).toEqual({ templateId: 'template-1' });
    expect(execution).toEqual({ executionId: input.executionId, projectId: 'project-1', workflowId: 'workflow-1', contactId: 'contact-1', context: { plan: 'pro' }, eventName: 'signup', eventData: { source: 'ads' } });
    expect(mocks.sentAt[0] - startedAt).toBeGreaterThanOrEqual(3 * DAY);
    expect(mocks.activities.finishExecution.mock.calls).toEqual([[input.executionId, 'COMPLETED']]);
  });

  it('times out a WAIT_FOR_EVENT after 2 days and, without branches, follows its plain transition', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome, startedAt } = await run(mocks, {
      steps: [step('wait', 'WAIT_FOR_EVENT', { eventName: 'purchase', timeout: { amount: 2, unit: 'days' } }), step('send', 'SEND_EMAIL')],
      transitions: [edge('wait', 'send')],
    });
    expect(outcome.value).toBe('COMPLETED');
    expect(mocks.activities.recordExecutionStep.mock.calls.map((call) => call.slice(1))).toEqual([['wait', 'WAITING'], ['send', 'RUNNING']]);
    expect(mocks.sentAt[0] - startedAt).toBeGreaterThanOrEqual(2 * DAY);
  });

  it('takes the no branch of a WAIT_FOR_EVENT when the timeout passes first', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome } = await run(mocks, {
      steps: [step('wait', 'WAIT_FOR_EVENT', { eventName: 'purchase', timeout: { amount: 2, unit: 'days' } }), step('thanks', 'SEND_EMAIL'), step('nudge', 'SEND_EMAIL')],
      transitions: [edge('wait', 'thanks', 'yes'), edge('wait', 'nudge', 'no')],
    });
    expect(outcome.value).toBe('COMPLETED');
    expect(mocks.activities.sendWorkflowEmail.mock.calls.map((call) => call[1])).toEqual(['nudge']);
  });

  it('takes the yes branch of a WAIT_FOR_EVENT when the event is signalled, ignoring other events', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome, startedAt } = await run(
      mocks,
      {
        steps: [step('wait', 'WAIT_FOR_EVENT', { eventName: 'purchase', timeout: { amount: 7, unit: 'days' } }), step('thanks', 'SEND_EMAIL'), step('nudge', 'SEND_EMAIL')],
        transitions: [edge('wait', 'thanks', 'yes'), edge('wait', 'nudge', 'no')],
      },
      async (workflowId) => {
        await reached(mocks, 'wait');
        const handle = temporal.env.client.workflow.getHandle(workflowId);
        await handle.signal(eventReceived, { name: 'pageview', data: {} });
        await handle.signal(eventReceived, { name: 'purchase', data: { amount: 42 } });
      },
    );
    expect(outcome.value).toBe('COMPLETED');
    expect(mocks.activities.sendWorkflowEmail.mock.calls.map((call) => call[1])).toEqual(['thanks']);
    expect(mocks.sentAt[0] - startedAt).toBeLessThan(DAY);
  });

  it('follows the yes branch of a CONDITION, evaluated with the triggering event', async () => {
    const mocks = mockActivities(temporal.env);
    const condition = { logic: 'AND', groups: [{ filters: [{ field: 'event.data.source', operator: 'equals', value: 'ads' }] }] };
    const { outcome } = await run(mocks, {
      steps: [step('check', 'CONDITION', { condition }), step('yes', 'SEND_EMAIL'), step('no', 'SEND_EMAIL')],
      transitions: [edge('check', 'yes', 'yes'), edge('check', 'no', 'no')],
    });
    expect(outcome.value).toBe('COMPLETED');
    expect(mocks.activities.evaluateCondition).toHaveBeenCalledWith('project-1', 'contact-1', condition, { source: 'ads' });
    expect(mocks.activities.sendWorkflowEmail.mock.calls.map((call) => call[1])).toEqual(['yes']);
  });

  it('ends COMPLETED when a CONDITION takes a branch that has no transition', async () => {
    const mocks = mockActivities(temporal.env);
    mocks.activities.evaluateCondition.mockResolvedValue(false);
    const { outcome, input } = await run(mocks, {
      steps: [step('check', 'CONDITION', { condition: { logic: 'AND', groups: [] } }), step('yes', 'SEND_EMAIL')],
      transitions: [edge('check', 'yes', 'yes')],
    });
    expect(outcome.value).toBe('COMPLETED');
    expect(mocks.activities.sendWorkflowEmail).not.toHaveBeenCalled();
    expect(mocks.activities.finishExecution.mock.calls).toEqual([[input.executionId, 'COMPLETED']]);
  });

  it('records CANCELLED and sends nothing when cancelled during a DELAY', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome, input } = await run(
      mocks,
      {
        steps: [step('delay', 'DELAY', { amount: 3, unit: 'days' }), step('send', 'SEND_EMAIL')],
        transitions: [edge('delay', 'send')],
      },
      async (workflowId) => {
        await reached(mocks, 'delay');
        await temporal.env.client.workflow.getHandle(workflowId).cancel();
      },
    );
    expect(outcome.error).toBeDefined();
    expect(mocks.activities.sendWorkflowEmail).not.toHaveBeenCalled();
    expect(mocks.activities.finishExecution.mock.calls).toEqual([[input.executionId, 'CANCELLED']]);
  });

  it('records FAILED with the reason when a step fails for good, without retrying it', async () => {
    const mocks = mockActivities(temporal.env);
    mocks.activities.sendWorkflowEmail.mockRejectedValue(
      ApplicationFailure.create({ message: 'The sender domain example.com is not verified', type: 'PermanentStepError', nonRetryable: true }),
    );
    const { outcome, input } = await run(mocks, {
      steps: [step('send', 'SEND_EMAIL'), step('after', 'UPDATE_CONTACT', { data: { plan: 'free' } })],
      transitions: [edge('send', 'after')],
    });
    expect(outcome.error).toBeDefined();
    expect(mocks.activities.sendWorkflowEmail).toHaveBeenCalledTimes(1);
    expect(mocks.activities.updateWorkflowContact).not.toHaveBeenCalled();
    expect(mocks.activities.finishExecution.mock.calls).toEqual([[input.executionId, 'FAILED', 'The sender domain example.com is not verified']]);
  });

  it('runs WEBHOOK and UPDATE_CONTACT steps, then stops at EXIT as EXITED', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome, input } = await run(mocks, {
      steps: [
        step('hook', 'WEBHOOK', { url: 'https://hooks.example.com/x' }),
        step('update', 'UPDATE_CONTACT', { subscribed: false }),
        step('exit', 'EXIT'),
        step('never', 'SEND_EMAIL'),
      ],
      transitions: [edge('hook', 'update'), edge('update', 'exit'), edge('exit', 'never')],
    });
    expect(outcome.value).toBe('EXITED');
    expect(mocks.activities.callWebhook.mock.calls[0].slice(1)).toEqual(['hook', { url: 'https://hooks.example.com/x' }]);
    expect(mocks.activities.updateWorkflowContact).toHaveBeenCalledWith('project-1', 'contact-1', { subscribed: false });
    expect(mocks.activities.sendWorkflowEmail).not.toHaveBeenCalled();
    // The EXIT step is recorded with the end, in one call.
    expect(mocks.activities.recordExecutionStep.mock.calls.map((call) => call[1])).toEqual(['hook', 'update']);
    expect(mocks.activities.finishExecution.mock.calls).toEqual([[input.executionId, 'EXITED', null, 'exit']]);
  });

  it('stops at an EXIT step whose end finds the record already ended (cancelled through the API)', async () => {
    const mocks = mockActivities(temporal.env);
    mocks.activities.finishExecution.mockResolvedValue(false);
    const { outcome, input } = await run(mocks, { steps: [step('update', 'UPDATE_CONTACT', { subscribed: false }), step('exit', 'EXIT')], transitions: [edge('update', 'exit')] });
    expect(outcome.value).toBe('STOPPED');
    expect(mocks.activities.finishExecution.mock.calls).toEqual([[input.executionId, 'EXITED', null, 'exit']]);
  });

  it('stops without finishing when its record already ended (cancelled through the API)', async () => {
    const mocks = mockActivities(temporal.env);
    mocks.activities.recordExecutionStep.mockResolvedValue(false);
    const { outcome } = await run(mocks, { steps: [step('send', 'SEND_EMAIL')], transitions: [] });
    expect(outcome.value).toBe('STOPPED');
    expect(mocks.activities.sendWorkflowEmail).not.toHaveBeenCalled();
    expect(mocks.activities.finishExecution).not.toHaveBeenCalled();
  });

  it('fails a step with an unusable config, naming the step', async () => {
    const mocks = mockActivities(temporal.env);
    const { outcome, input } = await run(mocks, { steps: [step('delay', 'DELAY', { amount: 3, unit: 'fortnights' })], transitions: [] });
    expect(outcome.error).toBeDefined();
    expect(mocks.activities.finishExecution.mock.calls).toEqual([
      [input.executionId, 'FAILED', 'Step "delay" (DELAY): needs { amount, unit: seconds|minutes|hours|days|weeks }'],
    ]);
  });
});
