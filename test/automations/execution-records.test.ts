import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { workflowEmailId } from '../../src/automations/email-ids';
import { ExecutionNotFoundError } from '../../src/automations/errors';
import { ExecutionRecords } from '../../src/automations/execution-records';
import { openDatabase } from '../../src/db/data-source';
import type { Delivery } from '../../src/sending/delivery';
import { createContact, createProject, createWorkflow } from './fixtures';

/** The execution records' moves and ends, which executions running at the same time share statements for. */
describe('ExecutionRecords grouped writes', () => {
  let dataSource: DataSource;
  let records: ExecutionRecords;
  let projectId: string;
  let workflowId: string;
  let stepIds: Record<string, string>;
  const failed: string[] = [];

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
    ({ projectId } = await createProject(dataSource));
    ({ workflowId, stepIds } = await createWorkflow(dataSource, projectId, {
      allowReentry: true,
      steps: [{ key: 'delay', type: 'DELAY', config: { amount: 1, unit: 'days' } }, { key: 'send', type: 'SEND_EMAIL' }],
      transitions: [['delay', 'send']],
    }));
    const delivery = { fail: async (emailId: string) => void failed.push(emailId) } as unknown as Delivery;
    records = new ExecutionRecords(dataSource, delivery);
  });
  afterAll(() => dataSource?.destroy());

  const execution = async (status = 'RUNNING') => {
    const { contactId } = await createContact(dataSource, projectId);
    const [{ id }]: { id: string }[] = await dataSource.query(
      `INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status) VALUES ($1, $2, $3, $4) RETURNING id`,
      [projectId, workflowId, contactId, status],
    );
    return id;
  };
  const rows = async (ids: string[]) =>
    (await dataSource.query('SELECT id, status, current_step_id, error, completed_at IS NOT NULL AS ended FROM workflow_executions WHERE id = ANY($1)', [ids])) as {
      id: string; status: string; current_step_id: string | null; error: string | null; ended: boolean;
    }[];

  it('moves many executions at once, each to its own step, and answers false for one that ended', async () => {
    const running = await Promise.all(Array.from({ length: 12 }, () => execution()));
    const ended = await execution('EXITED');
    const moved = await Promise.all([
      ...running.map((id, i) => records.recordStep(id, i % 2 ? stepIds.delay : stepIds.send, i % 2 ? 'WAITING' : 'RUNNING')),
      records.recordStep(ended, stepIds.send, 'RUNNING'),
    ]);
    expect(moved).toEqual([...running.map(() => true), false]);
    const byId = new Map((await rows([...running, ended])).map((row) => [row.id, row]));
    running.forEach((id, i) => expect(byId.get(id)).toMatchObject({ status: i % 2 ? 'WAITING' : 'RUNNING', current_step_id: i % 2 ? stepIds.delay : stepIds.send }));
    expect(byId.get(ended)).toMatchObject({ status: 'EXITED', current_step_id: null });
  });

  it('applies two moves of one execution that meet in a group one after the other', async () => {
    const [blocker, id] = [await execution(), await execution()];
    // The first write runs alone; the next three wait and form one group.
    const moved = await Promise.all([
      records.recordStep(blocker, stepIds.delay, 'WAITING'),
      records.recordStep(id, stepIds.delay, 'WAITING'),
      records.recordStep(blocker, stepIds.send, 'RUNNING'),
      records.recordStep(id, stepIds.send, 'RUNNING'),
    ]);
    expect(moved).toEqual([true, true, true, true]);
    expect((await rows([id, blocker])).map((row) => [row.current_step_id, row.status])).toEqual([[stepIds.send, 'RUNNING'], [stepIds.send, 'RUNNING']]);
  });

  it('throws ExecutionNotFoundError for an execution that does not exist, without failing the others of its group', async () => {
    const id = await execution();
    const [missing, other] = await Promise.allSettled([records.recordStep(randomUUID(), stepIds.send, 'RUNNING'), records.recordStep(id, stepIds.send, 'RUNNING')]);
    expect(missing).toMatchObject({ status: 'rejected', reason: expect.any(ExecutionNotFoundError) });
    expect(other).toEqual({ status: 'fulfilled', value: true });
  });

  it('ends many executions at once with their statuses and reasons, keeps one that ended, and abandons the email of a failed one', async () => {
    const [exited, failedId, cancelled] = [await execution(), await execution(), await execution()];
    const done = await execution('COMPLETED');
    await records.recordStep(failedId, stepIds.send, 'RUNNING');
    await Promise.all([
      records.finish(exited, 'EXITED'),
      records.finish(failedId, 'FAILED', 'x'.repeat(1500)),
      records.finish(cancelled, 'CANCELLED'),
      records.finish(done, 'FAILED', 'late'),
    ]);
    const byId = new Map((await rows([exited, failedId, cancelled, done])).map((row) => [row.id, row]));
    expect(byId.get(exited)).toMatchObject({ status: 'EXITED', error: null, ended: true });
    expect(byId.get(failedId)).toMatchObject({ status: 'FAILED', error: 'x'.repeat(1000), ended: true });
    expect(byId.get(cancelled)).toMatchObject({ status: 'CANCELLED', ended: true });
    expect(byId.get(done)).toMatchObject({ status: 'COMPLETED', error: null, ended: false });
    expect(failed).toEqual([workflowEmailId(failedId, stepIds.send)]);
  });

  it('ends an execution at the step it ended at beside ends at none, answers false for one that ended, and throws ExecutionNotFoundError for one not there', async () => {
    const [blocker, atStep, plain] = [await execution(), await execution(), await execution()];
    const done = await execution('CANCELLED');
    await records.recordStep(plain, stepIds.delay, 'WAITING');
    // The first end runs alone; the next four wait and form one group.
    const [, ...ends] = await Promise.allSettled([
      records.finish(blocker, 'COMPLETED'),
      records.finish(atStep, 'EXITED', null, stepIds.send),
      records.finish(plain, 'COMPLETED'),
      records.finish(done, 'EXITED', null, stepIds.send),
      records.finish(randomUUID(), 'EXITED', null, stepIds.send),
    ]);
    expect(ends.slice(0, 3)).toEqual([{ status: 'fulfilled', value: true }, { status: 'fulfilled', value: true }, { status: 'fulfilled', value: false }]);
    expect(ends[3]).toMatchObject({ status: 'rejected', reason: expect.any(ExecutionNotFoundError) });
    const byId = new Map((await rows([atStep, plain, done])).map((row) => [row.id, row]));
    expect(byId.get(atStep)).toMatchObject({ status: 'EXITED', current_step_id: stepIds.send, ended: true });
    expect(byId.get(plain)).toMatchObject({ status: 'COMPLETED', current_step_id: stepIds.delay, ended: true });
    expect(byId.get(done)).toMatchObject({ status: 'CANCELLED', current_step_id: null, ended: false });
  });

  it('fails only the move the database refuses, not the others of its group', async () => {
    const [blocker, a, b] = [await execution(), await execution(), await execution()];
    // The first write runs alone; the next three wait and form one group, whose statement the bad step id fails.
    const [, first, bad, second] = await Promise.allSettled([
      records.recordStep(blocker, stepIds.delay, 'WAITING'),
      records.recordStep(a, stepIds.send, 'RUNNING'),
      records.recordStep(b, 'not-a-step-id', 'RUNNING'),
      records.recordStep(b, stepIds.delay, 'WAITING'),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: true });
    expect(bad).toMatchObject({ status: 'rejected' });
    expect(second).toEqual({ status: 'fulfilled', value: true });
    expect((await rows([a])).map((row) => row.current_step_id)).toEqual([stepIds.send]);
  });

  it('ends an execution whose reason holds a NUL character, with the others of its group', async () => {
    const [blocker, nul, other] = [await execution(), await execution(), await execution()];
    await Promise.all([records.finish(blocker, 'EXITED'), records.finish(nul, 'FAILED', 'bad\u0000answer'), records.finish(other, 'COMPLETED')]);
    const byId = new Map((await rows([nul, other])).map((row) => [row.id, row]));
    expect(byId.get(nul)).toMatchObject({ status: 'FAILED', error: 'badanswer', ended: true });
    expect(byId.get(other)).toMatchObject({ status: 'COMPLETED', ended: true });
  });
});
