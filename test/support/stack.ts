import { Client, startApi, type TestApi } from './api';
import { SesServer } from './ses-server';
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

/** A test stack that sends through its own local SES server. */
export interface SesStack extends TestStack {
  ses: SesServer;
}

/** Starts a local SES server and a test stack sending through it with test AWS credentials; `close()` stops both. */
export async function startSesStack(env: Record<string, string>): Promise<SesStack> {
  const ses = await SesServer.start();
  process.env.AWS_ACCESS_KEY_ID = 'AKIDTEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'test-secret';
  let stack: TestStack;
  try {
    stack = await startTestStack({ ...env, SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint });
  } catch (error) {
    await ses.close();
    throw error;
  }
  return {
    ...stack,
    ses,
    close: async () => {
      await stack.close();
      await ses.close();
    },
  };
}
