import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { WorkflowExecution } from '../../src/entities/workflow';
import { cancelExecution, signalWaitingExecutions, startExecution, type EngineDeps } from '../../src/automations/start-execution';
import type { TestTemporal } from '../support/worker';
import { createContact, createProject, createWorkflow, until, type StepSpec, startEngine, type TestEngine } from './fixtures';

describe('startExecution, cancelExecution and signalWaitingExecutions', () => {
  let engine: TestEngine;
  let dataSource: DataSource;
  let temporal: TestTemporal;
  let deps: EngineDeps;
  let projectId: string;

  beforeAll(async () => {
    engine = await startEngine('wf-engine');
    ({ dataSource, temporal, deps } = engine);
    ({ projectId } = await createProject(dataSource));
  });
  afterAll(() => engine?.close());

  const LONG_DELAY: StepSpec[] = [{ key: 'delay', type: 'DELAY', config: { amount: 1, unit: 'days' } }];
  const EXIT_AT_ONCE: StepSpec[] = [{ key: 'exit', type: 'EXIT' }];

  const executionsOf = (workflowId: string, contactId: string): Promise<{ id: string; status: string }[]> =>
    dataSource.query('SELECT id, status FROM workflow_executions WHERE workflow_id = $1 AND contact_id = $2 ORDER BY started_at', [workflowId, contactId]);
  const statusOf = async (executionId: string): Promise<string> =>
    ((await dataSource.query('SELECT status FROM workflow_executions WHERE id = $1', [executionId])) as { status: string }[])[0].status;

  it.each([false, true])('keeps one active execution when starts for a contact race (allowReentry %s)', async (allowReentry) => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { allowReentry, steps: LONG_DELAY });
    const { contactId } = await createContact(dataSource, projectId);
    const started = await Promise.all(Array.from({ length: 6 }, () => startExecution(deps, { projectId, workflowId, contactId })));
    expect(started.filter((execution) => execution !== null)).toHaveLength(1);
    expect(await executionsOf(workflowId, contactId)).toEqual([{ id: started.find(Boolean)!.id, status: expect.stringMatching(/RUNNING|WAITING/) }]);
  });

  it('refuses a second start after the first ended when allowReentry is false', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { allowReentry: false, steps: EXIT_AT_ONCE });
    const { contactId } = await createContact(dataSource, projectId);
    const first = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    expect(first).toMatchObject({ projectId, workflowId, contactId, status: 'RUNNING', context: {} });
    await until(() => statusOf(first.id), (status) => status === 'EXITED');
    expect(await startExecution(deps, { projectId, workflowId, contactId })).toBeNull();
    expect(await executionsOf(workflowId, contactId)).toHaveLength(1);
  });

  it('starts again after the first ended when allowReentry is true', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { allowReentry: true, steps: EXIT_AT_ONCE });
    const { contactId } = await createContact(dataSource, projectId);
    const first = (await startExecution(deps, { projectId, workflowId, contactId, context: { round: 1 } }))!;
    await until(() => statusOf(first.id), (status) => status === 'EXITED');
    const second = await startExecution(deps, { projectId, workflowId, contactId, context: { round: 2 } });
    expect(second).toMatchObject({ status: 'RUNNING', context: { round: 2 } });
    await until(() => statusOf(second!.id), (status) => status === 'EXITED');
    expect((await executionsOf(workflowId, contactId)).map((row) => row.status)).toEqual(['EXITED', 'EXITED']);
  });

  it('answers 404 for a workflow or contact of another project', async () => {
    const other = await createProject(dataSource);
    const { workflowId } = await createWorkflow(dataSource, other.projectId, { steps: EXIT_AT_ONCE });
    const { contactId } = await createContact(dataSource, projectId);
    await expect(startExecution(deps, { projectId, workflowId, contactId })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('starts the Temporal workflow wf-exec/<id> with the graph and Herald search attributes', async () => {
    const { workflowId, stepIds } = await createWorkflow(dataSource, projectId, { steps: LONG_DELAY });
    const { contactId, email } = await createContact(dataSource, projectId);
    const execution = (await startExecution(deps, { projectId, workflowId, contactId, eventName: 'signup', eventData: { plan: 'pro' } }))!;
    const handle = temporal.client.workflow.getHandle(`wf-exec/${execution.id}`);
    const description = await handle.describe();
    expect(description.type).toBe('runWorkflowExecutionV2');
    const attributes = Object.fromEntries(description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]));
    expect(attributes).toMatchObject({ HeraldProjectId: projectId, HeraldWorkflowId: workflowId, HeraldContactEmail: email });
    await until(() => statusOf(execution.id), (status) => status === 'WAITING');
    const [row]: { current_step_id: string }[] = await dataSource.query('SELECT current_step_id FROM workflow_executions WHERE id = $1', [execution.id]);
    expect(row.current_step_id).toBe(stepIds.delay);
    await cancelExecution(deps, projectId, workflowId, execution.id);
  });

  it('waits out an entry DELAY as the workflow\'s start delay: the record starts WAITING at it, and an event signalled meanwhile does not cut it short', async () => {
    const { workflowId, stepIds } = await createWorkflow(dataSource, projectId, {
      steps: [
        { key: 'delay', type: 'DELAY', config: { amount: 3, unit: 'seconds' } },
        { key: 'wait', type: 'WAIT_FOR_EVENT', config: { eventName: 'pageview', timeout: { amount: 1, unit: 'seconds' } } },
        { key: 'exit', type: 'EXIT' },
      ],
      transitions: [['delay', 'wait'], ['wait', 'exit']],
    });
    const { contactId } = await createContact(dataSource, projectId);
    const execution = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    expect(execution).toMatchObject({ status: 'WAITING', currentStepId: stepIds.delay });
    const handle = temporal.client.workflow.getHandle(`wf-exec/${execution.id}`);
    const { events } = await handle.fetchHistory();
    expect(Number(events![0].workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff!.seconds)).toBe(3);
    // A signal ends a start delay early; the workflow waits out the rest of the DELAY itself.
    expect(await signalWaitingExecutions(deps, projectId, contactId, { name: 'pageview', data: {} })).toBe(1);
    await until(() => statusOf(execution.id), (status) => status === 'EXITED', 'the execution to exit', 20_000);
    const [row]: { waited: number; current_step_id: string }[] = await dataSource.query(
      'SELECT extract(epoch FROM completed_at - started_at)::float AS waited, current_step_id FROM workflow_executions WHERE id = $1',
      [execution.id],
    );
    expect(row.current_step_id).toBe(stepIds.exit);
    expect(row.waited).toBeGreaterThanOrEqual(3);
  });

  it('cancels a waiting execution: the record is CANCELLED at once and so is the Temporal workflow', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { steps: LONG_DELAY });
    const { contactId } = await createContact(dataSource, projectId);
    const execution = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    await until(() => statusOf(execution.id), (status) => status === 'WAITING');
    const cancelled: WorkflowExecution = await cancelExecution(deps, projectId, workflowId, execution.id);
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.completedAt).toBeInstanceOf(Date);
    const handle = temporal.client.workflow.getHandle(`wf-exec/${execution.id}`);
    await until(async () => (await handle.describe()).status.name, (status) => status === 'CANCELLED');
    expect(await statusOf(execution.id)).toBe('CANCELLED');
    // Cancelling an ended execution changes nothing.
    expect((await cancelExecution(deps, projectId, workflowId, execution.id)).status).toBe('CANCELLED');
  });

  it('marks an execution whose Temporal workflow is gone CANCELLED directly', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, { steps: LONG_DELAY });
    const { contactId } = await createContact(dataSource, projectId);
    const [{ id }]: { id: string }[] = await dataSource.query(
      `INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status) VALUES ($1, $2, $3, 'WAITING') RETURNING id`,
      [projectId, workflowId, contactId],
    );
    expect((await cancelExecution(deps, projectId, workflowId, id)).status).toBe('CANCELLED');
    await expect(cancelExecution(deps, projectId, randomUUID(), id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('resumes a WAIT_FOR_EVENT when the awaited event is signalled, then updates the contact', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, {
      steps: [
        { key: 'wait', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase' } },
        { key: 'update', type: 'UPDATE_CONTACT', config: { data: { purchased: true } } },
      ],
      transitions: [['wait', 'update', 'yes']],
    });
    const { contactId } = await createContact(dataSource, projectId, { data: { plan: 'free' } });
    const execution = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    await until(() => statusOf(execution.id), (status) => status === 'WAITING');
    // Only the events its graph waits for are signalled to it.
    expect(await signalWaitingExecutions(deps, projectId, contactId, { name: 'pageview', data: {} })).toBe(0);
    expect(await statusOf(execution.id)).toBe('WAITING');
    expect(await signalWaitingExecutions(deps, projectId, contactId, { name: 'purchase', data: { amount: 5 } })).toBe(1);
    await until(() => statusOf(execution.id), (status) => status === 'COMPLETED');
    const [contact]: { data: Record<string, unknown> }[] = await dataSource.query('SELECT data FROM contacts WHERE id = $1', [contactId]);
    expect(contact.data).toEqual({ plan: 'free', purchased: true });
    expect(await signalWaitingExecutions(deps, projectId, contactId, { name: 'purchase', data: {} })).toBe(0);
  });

  it('records the events an execution\'s graph waits for as it starts, and signals an execution without that record every event', async () => {
    const { workflowId } = await createWorkflow(dataSource, projectId, {
      steps: [
        { key: 'first', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase' } },
        { key: 'second', type: 'WAIT_FOR_EVENT', config: { eventName: 'refund' } },
        { key: 'third', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase' } },
      ],
      transitions: [['first', 'second', 'yes'], ['second', 'third', 'yes']],
    });
    const { contactId } = await createContact(dataSource, projectId);
    const execution = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    const [row]: { awaited_events: string[] }[] = await dataSource.query('SELECT awaited_events FROM workflow_executions WHERE id = $1', [execution.id]);
    expect(row.awaited_events).toEqual(['purchase', 'refund']);
    expect(await signalWaitingExecutions(deps, projectId, contactId, { name: 'pageview', data: {} })).toBe(0);
    // An execution started before executions recorded what they wait for.
    await dataSource.query('UPDATE workflow_executions SET awaited_events = NULL WHERE id = $1', [execution.id]);
    expect(await signalWaitingExecutions(deps, projectId, contactId, { name: 'pageview', data: {} })).toBe(1);
    await cancelExecution(deps, projectId, workflowId, execution.id);
  });
});
