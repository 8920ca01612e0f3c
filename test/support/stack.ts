import { Client, startApi, type TestApi } from './api';
import { connectTestTemporal, startTestWorker, type TestTemporal, type TestWorker } from './worker';

/** The API and a worker on the test Temporal server, configured alike by `env`. */
export interface TestStack {
  temporal: TestTemporal;
  api: TestApi;
  worker: TestWorker;
  client: Client;
  close(): Promise<void>;
}

/** Starts a Temporal client, the API and a worker; give each test file its own TEMPORAL_TASK_QUEUE in `env`. */
export async function startTestStack(env: Record<string, string>): Promise<TestStack> {
  const temporal = await connectTestTemporal();
  const api = await startApi({ env, temporal: temporal.client });
  const worker = await startTestWorker(api.dataSource, env);
  return {
    temporal,
    api,
    worker,
    client: new Client(api.url),
    close: async () => {
      await worker.close();
      await api.close();
      await temporal.close();
    },
  };
}
