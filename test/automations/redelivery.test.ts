import { randomUUID } from 'node:crypto';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { redeliverDue } from '../../src/events/redelivery';
import { signalWaitingExecutions, startExecution, type EngineDeps } from '../../src/automations/start-execution';
import { executionWorkflowId } from '../../workflows/shared';
import type { TestWorker } from '../support/worker';
import { createContact, createProject, createWorkflow, until, startEngine, type TestEngine } from './fixtures';

/**
 * A dispatch delivered late or twice, as after a crash between a commit and its dispatch:
 * workflow triggers start each execution once, and an execution takes each event once.
 */
describe('event dispatches redelivered to workflow triggers and waits', () => {
  let engine: TestEngine;
  let dataSource: DataSource;
  let worker: TestWorker;
  let deps: EngineDeps;
  let projectId: string;

  beforeAll(async () => {
    engine = await startEngine('wf-redelivery', { ownDatabase: true });
    ({ dataSource, worker, deps } = engine);
    ({ projectId } = await createProject(dataSource));
  });
  afterAll(() => engine?.close());

  /** Stores an event and its dispatch, due now, as a process that died right after its commit leaves them. */
  async function undeliveredEvent(contactId: string, name: string): Promise<string> {
    const [{ id }]: { id: string }[] = await dataSource.query(
      `INSERT INTO events (project_id, contact_id, name, source, data) VALUES ($1, $2, $3, 'API', '{}') RETURNING id`,
      [projectId, contactId, name],
    );
    await queueAgain(id);
    return id;
  }
  const queueAgain = (eventId: string) =>
    dataSource.query(`INSERT INTO event_dispatches (project_id, event_ids, retry_at) VALUES ($1, $2, now())`, [projectId, [eventId]]);
  const executionsOf = (workflowId: string, contactId: string): Promise<{ status: string; trigger_event_id: string | null }[]> =>
    dataSource.query('SELECT status, trigger_event_id FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2', [workflowId, contactId]);
  const redeliverUntilDone = () =>
    until(
      async () => {
        await redeliverDue(dataSource, worker.dispatcher);
        return (await dataSource.query('SELECT count(*)::int AS n FROM event_dispatches WHERE project_id = $1', [projectId]))[0].n as number;
      },
      (left) => left === 0,
    );

  it('starts the triggered workflow of an event whose dispatch was lost, once however often it is delivered', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { allowReentry: true, steps: [{ key: 'exit', type: 'EXIT' }] });
    await dataSource.query('UPDATE workflows SET enabled = true WHERE id = $1', [workflowId]);
    const { contactId } = await createContact(dataSource, projectId);

    const eventId = await undeliveredEvent(contactId, 'signup');
    expect(await executionsOf(workflowId, contactId)).toEqual([]);
    await redeliverUntilDone();
    await until(() => executionsOf(workflowId, contactId), (rows) => rows.length === 1 && rows[0].status === 'EXITED');
    expect(await executionsOf(workflowId, contactId)).toEqual([{ status: 'EXITED', trigger_event_id: eventId }]);

    await queueAgain(eventId);
    await redeliverUntilDone();
    expect(await executionsOf(workflowId, contactId)).toEqual([{ status: 'EXITED', trigger_event_id: eventId }]);
  });

  it('lets a waiting execution take a repeated event once', async () => {
    const { workflowId, stepIds } = await createWorkflow(dataSource, projectId, {
      steps: [
        { key: 'first', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase', timeout: { amount: 1, unit: 'days' } } },
        { key: 'second', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase', timeout: { amount: 1, unit: 'days' } } },
        { key: 'exit', type: 'EXIT' },
      ],
      transitions: [
        ['first', 'second', 'yes'],
        ['second', 'exit', 'yes'],
      ],
    });
    const { contactId } = await createContact(dataSource, projectId);
    const execution = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    const stateOf = async () =>
      ((await dataSource.query('SELECT status, current_step_id FROM workflow_executions WHERE id = $1', [execution.id])) as { status: string; current_step_id: string }[])[0];
    await until(stateOf, (state) => state.current_step_id === stepIds.first && state.status === 'WAITING');

    const purchase = { id: randomUUID(), name: 'purchase', data: {} };
    expect(await signalWaitingExecutions(deps, projectId, contactId, purchase)).toBe(1);
    await until(stateOf, (state) => state.current_step_id === stepIds.second && state.status === 'WAITING');
    expect(await signalWaitingExecutions(deps, projectId, contactId, purchase)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await stateOf()).toEqual({ status: 'WAITING', current_step_id: stepIds.second });

    expect(await signalWaitingExecutions(deps, projectId, contactId, { ...purchase, id: randomUUID() })).toBe(1);
    await until(stateOf, (state) => state.status === 'EXITED');
  });

  /** The engine with a Temporal client whose workflow starts go through `interceptor` (the same server and namespace). */
  const startingThrough = (interceptor: WorkflowClientInterceptor): EngineDeps => ({
    ...deps,
    temporal: new Client({ connection: deps.temporal.connection, namespace: deps.temporal.options.namespace, interceptors: { workflow: [interceptor] } }),
  });
  const triggeredStart = (engine: EngineDeps, workflowId: string, contactId: string, eventId: string) =>
    startExecution(engine, { projectId, workflowId, contactId, eventName: 'signup', triggerEventId: eventId });
  /** An error as the client throws it when Temporal answers that it did not start the workflow (gRPC PERMISSION_DENIED). */
  const refusal = () =>
    Object.assign(new Error('Failed to start Workflow'), { cause: Object.assign(new Error('7 PERMISSION_DENIED: denied'), { code: 7, details: 'denied', metadata: {} }) });
  /** A workflow `DELAY 1 hour -> EXIT`, enabled; its id and the DELAY step's. */
  const delayedWorkflow = async () => {
    const { workflowId, stepIds } = await createWorkflow(dataSource, projectId, {
      steps: [
        { key: 'wait', type: 'DELAY', config: { amount: 1, unit: 'hours' } },
        { key: 'exit', type: 'EXIT' },
      ],
      transitions: [['wait', 'exit']],
    });
    await dataSource.query('UPDATE workflows SET enabled = true WHERE id = $1', [workflowId]);
    return { workflowId, delayStepId: stepIds.wait };
  };
  const recordsOf = (workflowId: string, contactId: string): Promise<{ id: string; status: string }[]> =>
    dataSource.query('SELECT id, status FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2', [workflowId, contactId]);
  const temporalStatus = async (executionId: string) => (await deps.temporal.workflow.getHandle(executionWorkflowId(executionId)).describe()).status.name;
  const exitWorkflow = async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { steps: [{ key: 'exit', type: 'EXIT' }] });
    await dataSource.query('UPDATE workflows SET enabled = true WHERE id = $1', [workflowId]);
    return workflowId;
  };

  /** The record a triggered start commits before its Temporal start, left as a process that died in between leaves it. */
  async function unstartedRecord(workflowId: string, contactId: string, eventId: string, at?: { stepId: string; startedAgo: string }): Promise<string> {
    const [{ id }]: { id: string }[] = await dataSource.query(
      `INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status, current_step_id, context, trigger_event_id, started_at)
       VALUES ($1, $2, $3, $4, $5, '{}', $6, now() - $7::interval) RETURNING id`,
      [projectId, workflowId, contactId, at ? 'WAITING' : 'RUNNING', at?.stepId ?? null, eventId, at?.startedAgo ?? '0 seconds'],
    );
    return id;
  }

  it('starts the workflow of the record a triggered start left when its process died before the Temporal start', async () => {
    const workflowId = await exitWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = await undeliveredEvent(contactId, 'signup');
    const unstarted = await unstartedRecord(workflowId, contactId, eventId);

    await redeliverUntilDone();
    await until(() => recordsOf(workflowId, contactId), (rows) => rows.length === 1 && rows[0].status === 'EXITED');
    expect(await recordsOf(workflowId, contactId)).toEqual([{ id: unstarted, status: 'EXITED' }]);

    await queueAgain(eventId);
    await redeliverUntilDone();
    expect(await recordsOf(workflowId, contactId)).toEqual([{ id: unstarted, status: 'EXITED' }]);
  });

  it('waits out only what is left of the entry DELAY of such a record', async () => {
    const { workflowId, delayStepId } = await delayedWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = await undeliveredEvent(contactId, 'signup');
    const unstarted = await unstartedRecord(workflowId, contactId, eventId, { stepId: delayStepId, startedAgo: '2 hours' });

    await redeliverUntilDone();
    await until(() => recordsOf(workflowId, contactId), (rows) => rows.length === 1 && rows[0].status === 'EXITED');
    expect(await recordsOf(workflowId, contactId)).toEqual([{ id: unstarted, status: 'EXITED' }]);
  });

  it('deletes the record of a triggered start that Temporal refused, and starts it once when the event comes again', async () => {
    const workflowId = await exitWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = randomUUID();
    const refusing = startingThrough({ startWithDetails: async () => { throw refusal(); } });

    await expect(triggeredStart(refusing, workflowId, contactId, eventId)).rejects.toMatchObject({ statusCode: 503 });
    expect(await executionsOf(workflowId, contactId)).toEqual([]);

    const started = await triggeredStart(deps, workflowId, contactId, eventId);
    expect(started).not.toBeNull();
    await until(() => executionsOf(workflowId, contactId), (rows) => rows.length === 1 && rows[0].status === 'EXITED');
    expect(await triggeredStart(deps, workflowId, contactId, eventId)).toBeNull();
    expect(await executionsOf(workflowId, contactId)).toEqual([{ status: 'EXITED', trigger_event_id: eventId }]);
  });

  it('leaves no record of a start asked for through the API that Temporal refused (it starts inside its transaction)', async () => {
    const workflowId = await exitWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    let committed: unknown[] | undefined;
    const refusing = startingThrough({
      startWithDetails: async (input) => {
        // The record is not visible outside its transaction while the start runs.
        committed = await executionsOf(workflowId, contactId);
        throw new Error(`Temporal is unavailable for ${input.options.workflowId}`);
      },
    });

    await expect(startExecution(refusing, { projectId, workflowId, contactId })).rejects.toMatchObject({ statusCode: 503 });
    expect(committed).toEqual([]);
    expect(await executionsOf(workflowId, contactId)).toEqual([]);
  });

  it('keeps the record of a triggered start whose answer was lost at its entry DELAY, and its next delivery takes it over', async () => {
    const { workflowId, delayStepId } = await delayedWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = randomUUID();
    const answerLost = startingThrough({
      startWithDetails: async (input, next) => {
        await next(input);
        throw new Error('connection reset');
      },
    });

    await expect(triggeredStart(answerLost, workflowId, contactId, eventId)).rejects.toMatchObject({ statusCode: 503 });
    const [kept] = await recordsOf(workflowId, contactId);
    expect(kept.status).toBe('WAITING');
    expect(await temporalStatus(kept.id)).toBe('RUNNING');

    expect(await triggeredStart(deps, workflowId, contactId, eventId)).toBeNull();
    expect(await recordsOf(workflowId, contactId)).toEqual([kept]);
    expect(await dataSource.query('SELECT current_step_id FROM workflow_executions WHERE id = $1', [kept.id])).toEqual([{ current_step_id: delayStepId }]);
    await deps.temporal.workflow.getHandle(executionWorkflowId(kept.id)).terminate('test finished');
  });

  it('keeps a record that a second delivery of the event claimed while the first start was refused', async () => {
    const { workflowId } = await delayedWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = randomUUID();
    let second: unknown;
    const refusedAfterSecond = startingThrough({
      startWithDetails: async () => {
        // Another process delivers the same event meanwhile: it finds the record and starts its workflow.
        second = await triggeredStart(deps, workflowId, contactId, eventId);
        throw refusal();
      },
    });

    await expect(triggeredStart(refusedAfterSecond, workflowId, contactId, eventId)).rejects.toMatchObject({ statusCode: 503 });
    expect(second).toBeNull();
    const records = await recordsOf(workflowId, contactId);
    expect(records).toEqual([{ id: expect.any(String), status: 'WAITING' }]);
    expect(await temporalStatus(records[0].id)).toBe('RUNNING');
    await deps.temporal.workflow.getHandle(executionWorkflowId(records[0].id)).terminate('test finished');
  });

  it('does not run again a workflow terminated during its entry DELAY when its event comes again (REJECT_DUPLICATE)', async () => {
    const { workflowId } = await delayedWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = randomUUID();
    const execution = (await triggeredStart(deps, workflowId, contactId, eventId))!;
    const handle = deps.temporal.workflow.getHandle(executionWorkflowId(execution.id));
    const { runId } = await handle.describe();
    await handle.terminate('operator');

    // The record is still as inserted (WAITING at the DELAY): the event's next delivery takes it over, and Temporal refuses a second run.
    expect(await triggeredStart(deps, workflowId, contactId, eventId)).toBeNull();
    const after = await handle.describe();
    expect([after.runId, after.status.name]).toEqual([runId, 'TERMINATED']);
  });

  it('leaves an unstarted record to its event\'s delivery when that delivery starts it while another event checks it as an orphan', async () => {
    const { workflowId, delayStepId } = await delayedWorkflow();
    await dataSource.query('UPDATE workflows SET allow_reentry = true WHERE id = $1', [workflowId]);
    const { contactId } = await createContact(dataSource, projectId);
    const first = randomUUID();
    const unstarted = await unstartedRecord(workflowId, contactId, first, { stepId: delayStepId, startedAgo: '2 minutes' });
    const checkingOrphans = startingThrough({
      describe: async (input, next) => {
        try {
          return await next(input);
        } finally {
          // Between Temporal's answer (no such workflow yet) and the close, the first event's delivery claims the record and starts it.
          await triggeredStart(deps, workflowId, contactId, first);
        }
      },
    });

    expect(await triggeredStart(checkingOrphans, workflowId, contactId, randomUUID())).toBeNull();
    expect(await recordsOf(workflowId, contactId)).toEqual([{ id: unstarted, status: 'WAITING' }]);
    expect(await temporalStatus(unstarted)).toBe('RUNNING');
    await deps.temporal.workflow.getHandle(executionWorkflowId(unstarted)).terminate('test finished');
  });

  it('keeps the record of a triggered start whose answer was lost after its workflow ran, and runs it once', async () => {
    const workflowId = await exitWorkflow();
    const { contactId } = await createContact(dataSource, projectId);
    const eventId = randomUUID();
    const started: string[] = [];
    const answerLost = startingThrough({
      startWithDetails: async (input, next) => {
        await next(input);
        started.push(input.options.workflowId);
        await until(() => executionsOf(workflowId, contactId), (rows) => rows[0]?.status === 'EXITED');
        throw new Error('connection reset');
      },
    });

    await expect(triggeredStart(answerLost, workflowId, contactId, eventId)).rejects.toMatchObject({ statusCode: 503 });
    const [{ id }]: { id: string }[] = await dataSource.query('SELECT id FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2', [workflowId, contactId]);
    expect(started).toEqual([executionWorkflowId(id)]);

    expect(await triggeredStart(deps, workflowId, contactId, eventId)).toBeNull();
    expect(await executionsOf(workflowId, contactId)).toEqual([{ status: 'EXITED', trigger_event_id: eventId }]);
  });
});
