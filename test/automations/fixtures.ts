import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import type { StepType } from '../../src/entities/workflow';
import type { EngineDeps } from '../../src/automations/start-execution';
import { connectTestTemporal, startTestWorker, type TestTemporal, type TestWorker } from '../support/worker';
import { createScratchDatabase } from '../support/scratch-database';

/** Polling for the engine's tests, shared with the rest of the suite. */
export { until } from '../support/wait';

/** A project with a verified sender domain, inserted directly. */
export async function createProject(dataSource: DataSource): Promise<{ projectId: string; domain: string }> {
  const [{ id }]: { id: string }[] = await dataSource.query(`INSERT INTO projects (name) VALUES ('Workflow engine test') RETURNING id`);
  const domain = `wf${id.replace(/-/g, '').slice(0, 12)}.test`;
  await dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [id, domain]);
  return { projectId: id, domain };
}

/** A contact of the project; its id. */
export async function createContact(
  dataSource: DataSource,
  projectId: string,
  options: { email?: string; subscribed?: boolean; data?: Record<string, unknown> } = {},
): Promise<{ contactId: string; email: string }> {
  const email = options.email ?? `c-${randomUUID()}@example.test`;
  const [{ id }]: { id: string }[] = await dataSource.query(
    'INSERT INTO contacts (project_id, email, subscribed, data) VALUES ($1, $2, $3, $4) RETURNING id',
    [projectId, email, options.subscribed ?? true, JSON.stringify(options.data ?? {})],
  );
  return { contactId: id, email };
}

/** A workflow step by a test's own key. */
export interface StepSpec {
  key: string;
  type: StepType;
  config?: Record<string, unknown>;
}

/** A workflow with its graph: steps in order, transitions as [from, to, branch?] of step keys; the step ids by key. */
export async function createWorkflow(
  dataSource: DataSource,
  projectId: string,
  graph: { name?: string; allowReentry?: boolean; steps: StepSpec[]; transitions?: [string, string, ('yes' | 'no')?][] },
): Promise<{ workflowId: string; stepIds: Record<string, string> }> {
  const [{ id: workflowId }]: { id: string }[] = await dataSource.query(
    `INSERT INTO workflows (project_id, name, trigger_config, allow_reentry) VALUES ($1, $2, '{"eventName":"signup"}', $3) RETURNING id`,
    [projectId, graph.name ?? 'Onboarding', graph.allowReentry ?? false],
  );
  const stepIds: Record<string, string> = {};
  for (const spec of graph.steps) {
    const [{ id }]: { id: string }[] = await dataSource.query(
      'INSERT INTO workflow_steps (workflow_id, type, name, config) VALUES ($1, $2, $3, $4) RETURNING id',
      [workflowId, spec.type, spec.key, JSON.stringify(spec.config ?? {})],
    );
    stepIds[spec.key] = id;
  }
  for (const [from, to, branch] of graph.transitions ?? []) {
    await dataSource.query('INSERT INTO workflow_transitions (workflow_id, from_step_id, to_step_id, branch) VALUES ($1, $2, $3, $4)', [
      workflowId,
      stepIds[from],
      stepIds[to],
      branch ?? null,
    ]);
  }
  return { workflowId, stepIds };
}

/** The database, a Temporal client and a worker on a task queue of their own: what the engine's tests run against. */
export interface TestEngine {
  dataSource: DataSource;
  temporal: TestTemporal;
  worker: TestWorker;
  deps: EngineDeps;
  close(): Promise<void>;
}

/**
 * Opens a pool on the test database and starts a worker on a fresh task queue named after
 * `prefix`. With `ownDatabase`, on a database of its own, dropped at close: for tests whose
 * redelivery passes claim the due dispatches of every project in the database.
 */
export async function startEngine(prefix: string, { ownDatabase = false } = {}): Promise<TestEngine> {
  const taskQueue = `${prefix}-${randomUUID()}`;
  const database = ownDatabase ? await createScratchDatabase(process.env.DATABASE_URL!, prefix.replace(/\W/g, '_'), 4) : undefined;
  const dataSource = database?.dataSource ?? (await openDatabase(process.env.DATABASE_URL!, 4));
  const temporal = await connectTestTemporal();
  const worker = await startTestWorker(dataSource, { TEMPORAL_TASK_QUEUE: taskQueue });
  return {
    dataSource,
    temporal,
    worker,
    deps: { dataSource, temporal: temporal.client, taskQueue },
    close: async () => {
      await worker.close();
      await temporal.close();
      await (database ? database.drop() : dataSource.destroy());
    },
  };
}
