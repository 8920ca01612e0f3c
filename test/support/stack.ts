import { createProject, startEngine, type TestEngine } from '../automations/fixtures';
import { Client, projectWithVerifiedDomain, signupWithProject, startApi, type TestApi } from './api';
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

/**
 * Registers a describe's set-up: `start` before its tests (closed after them), then `prepare` on what
 * it started, before each test or once; answers one object holding both, filled in as the hooks run.
 */
function useSetUp<S extends { close(): Promise<void> }, P extends object>(start: () => Promise<S>, prepare: (started: S) => Promise<P>, when: 'each test' | 'once'): S & P {
  const given = {} as S & P;
  let started: S | undefined;
  beforeAll(async () => {
    started = await start();
    Object.assign(given, started);
    if (when === 'once') Object.assign(given, await prepare(started));
  });
  afterAll(() => started?.close());
  if (when === 'each test') beforeEach(async () => Object.assign(given, await prepare(started!)));
  return given;
}

/** A project with a VERIFIED sending domain, its secret `key` and its owner's signed-in `owner` client. */
export interface VerifiedProject {
  projectId: string;
  key: string;
  domain: string;
  owner: Client;
}

/** An SES stack for the describe's tests, on their own TEMPORAL_TASK_QUEUE, and a new verified project for each test. */
export function useSesProject(taskQueue: string): SesStack & VerifiedProject {
  return useSetUp(
    () => startSesStack({ TEMPORAL_TASK_QUEUE: taskQueue }),
    async ({ api }) => {
      const created = await projectWithVerifiedDomain(api);
      return { projectId: created.project.id, key: created.key, domain: created.domain, owner: created.client };
    },
    'each test',
  );
}

/** A signed-up project's id and keys. */
export interface SignedUpProject {
  project: { id: string; publicKey: string; secretKey: string };
}

/** The API (without Temporal) and a client of it for the describe's tests, and a new signed-up project for each test. */
export function useSignedUpProject(): { api: TestApi; client: Client } & SignedUpProject {
  return useSetUp(
    async () => {
      const api = await startApi();
      return { api, client: new Client(api.url), close: api.close };
    },
    async ({ api }) => ({ project: (await signupWithProject(api)).project }),
    'each test',
  );
}

/** The workflow engine on a task queue named after `prefix` for the describe's tests, and one project with a verified domain for them all. */
export function useEngineProject(prefix: string): TestEngine & { projectId: string; domain: string } {
  return useSetUp(() => startEngine(prefix), ({ dataSource }) => createProject(dataSource), 'once');
}
