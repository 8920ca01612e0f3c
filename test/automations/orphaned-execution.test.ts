import type { DataSource } from 'typeorm';
import { cancelExecution, startExecution, type EngineDeps } from '../../src/automations/start-execution';
import type { TestTemporal } from '../support/worker';
import { createContact, createProject, createWorkflow, until, startEngine, type TestEngine } from './fixtures';

/** An execution terminated by an operator in the Temporal UI runs no cleanup; the next start records its end. */
describe('executions whose Temporal workflow was terminated from outside', () => {
  let engine: TestEngine;
  let dataSource: DataSource;
  let temporal: TestTemporal;
  let deps: EngineDeps;
  let projectId: string;

  beforeAll(async () => {
    engine = await startEngine('wf-orphans');
    ({ dataSource, temporal, deps } = engine);
    ({ projectId } = await createProject(dataSource));
  });
  afterAll(() => engine?.close());

  const record = async (id: string) =>
    ((await dataSource.query('SELECT status, error FROM workflow_executions WHERE id = $1', [id])) as { status: string; error: string | null }[])[0];
  /** Makes the record look started two minutes ago, past the age under which a record is taken to be running. */
  const age = (id: string) => dataSource.query(`UPDATE workflow_executions SET started_at = now() - interval '2 minutes' WHERE id = $1`, [id]);

  async function waitingExecution(allowReentry: boolean) {
    const { workflowId } = await createWorkflow(dataSource, projectId, { allowReentry, steps: [{ key: 'delay', type: 'DELAY', config: { amount: 1, unit: 'days' } }] });
    const { contactId } = await createContact(dataSource, projectId);
    const execution = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    await until(() => record(execution.id), (row) => row.status === 'WAITING');
    return { workflowId, contactId, execution };
  }

  it('records a terminated execution CANCELLED and lets the contact start the workflow again', async () => {
    const { workflowId, contactId, execution } = await waitingExecution(true);
    await temporal.client.workflow.getHandle(`wf-exec/${execution.id}`).terminate('stopped by an operator');
    await age(execution.id);

    const next = await startExecution(deps, { projectId, workflowId, contactId });
    expect(next).not.toBeNull();
    expect(next!.id).not.toBe(execution.id);
    expect(await record(execution.id)).toEqual({ status: 'CANCELLED', error: expect.stringContaining('TERMINATED') });
    expect((await record(next!.id)).status).toMatch(/RUNNING|WAITING/);
  });

  it('lets the API cancel an execution terminated in Temporal', async () => {
    const { workflowId, execution } = await waitingExecution(false);
    await temporal.client.workflow.getHandle(`wf-exec/${execution.id}`).terminate('stopped by an operator');
    expect(await cancelExecution(deps, projectId, workflowId, execution.id)).toMatchObject({ id: execution.id, status: 'CANCELLED' });
  });

  it('leaves an execution whose workflow still runs alone', async () => {
    const { workflowId, contactId, execution } = await waitingExecution(true);
    await age(execution.id);
    expect(await startExecution(deps, { projectId, workflowId, contactId })).toBeNull();
    expect(await record(execution.id)).toEqual({ status: 'WAITING', error: null });
  });
});
