import { randomUUID } from 'node:crypto';
import { openDatabase } from '../../src/db/data-source';
import { ensureWebhookDispatch } from '../../src/orchestration/webhook-dispatch';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { createDatabaseOn } from '../support/scratch-database';
import { connectTestTemporal, startTestWorker, type TestTemporal, type TestWorker } from '../support/worker';

/**
 * The API, on a database of its own (a dispatch pass claims every project's deliveries, so other
 * test files' rows must not be there), with WEBHOOK_ALLOW_PRIVATE for a loopback receiver, a
 * `webhook-dispatch` workflow of its own on its own task queue, and a worker in this process
 * unless told otherwise (a test that kills workers runs them in processes of their own, with `env`).
 */
export interface WebhookStack {
  api: TestApi;
  client: Client;
  temporal: TestTemporal;
  /** The configuration the API and workers run with. */
  env: Record<string, string>;
  /** Signs up and creates a project; its id and secret key. */
  project(): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

/** Starts the stack and the dispatch workflow; `options.env` adds configuration (WEBHOOK_CONCURRENCY). */
export async function startWebhookStack(prefix: string, options: { worker?: boolean; env?: Record<string, string> } = {}): Promise<WebhookStack> {
  const database = await createDatabaseOn(process.env.DATABASE_URL!, `herald_${prefix}`);
  await (await openDatabase(database.url, 1)).destroy();
  const taskQueue = `${prefix}-${randomUUID()}`;
  const env = { DATABASE_URL: database.url, TEMPORAL_TASK_QUEUE: taskQueue, WEBHOOK_ALLOW_PRIVATE: 'true', ...options.env };
  const temporal = await connectTestTemporal();
  const api = await startApi({ env, temporal: temporal.client });
  const worker: TestWorker | undefined = options.worker !== false ? await startTestWorker(api.dataSource, env) : undefined;
  const dispatchId = `webhook-dispatch-${taskQueue}`;
  await ensureWebhookDispatch(temporal.client, taskQueue, dispatchId);
  return {
    api,
    client: new Client(api.url),
    temporal,
    env,
    project: async () => {
      const { project } = await signupWithProject(api);
      return { id: project.id as string, key: project.secretKey as string };
    },
    close: async () => {
      await temporal.client.workflow.getHandle(dispatchId).terminate('test finished').catch(() => undefined);
      await worker?.close();
      await api.close();
      await temporal.close();
      await database.drop();
    },
  };
}
