import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { logger } from '../../src/logger';
import { routeTemporalLogs } from '../../src/orchestration/logging';
import { findTemporalCli } from '../../temporal/cli';
import { startTestServer, testServerScript } from '../../temporal/test-server';
import { freePort } from './ports';

/**
 * A time-skipping test environment on a Java test server of its own.
 *
 * Not the server of the global setup (HERALD_TEST_TEMPORAL_PORT): time on a test server is
 * global to it and skipping does not wait for running activities, so one file's
 * `env.sleep('30 days')` would fire the timers and time out the activities (heartbeat,
 * start-to-close) of real-time tests that another Jest worker runs on that server at the same
 * time. The server is started here with a 60 s start-up allowance; the SDK then runs
 * temporal/test-server.sh as its `existing-path` executable, which only waits while the server
 * listens. teardown() closes the SDK's side (killing the wrapper), then stops the server.
 */
async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  logger.level = loadConfig(process.env).logLevel;
  routeTemporalLogs();
  const server = await startTestServer(await freePort());
  try {
    const env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: testServerScript }, port: server.port },
    });
    const teardownEnv = env.teardown.bind(env);
    env.teardown = async () => {
      await teardownEnv();
      await server.stop();
    };
    return env;
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** A bundler logger that keeps quiet but for errors. */
const quietBundler = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

/** Bundles workflow code for a test worker: Herald's workflows (workflows/index.ts) unless another module is given. */
export function bundleWorkflows(workflowsPath = require.resolve('../../workflows')): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundler });
}

/** The time-skipping environment of one test file, with a way to run workers on it. */
export interface TimeSkipping {
  /** The environment: its client starts workflows, `sleep` skips time. Set once beforeAll has run. */
  readonly env: TestWorkflowEnvironment;
  /**
   * Runs `work` while a worker polls a task queue of its own (handed to `work`) with the given
   * activities (plain functions) and Herald's workflows, or another bundle; the worker stops when
   * `work` ends. `maxCachedWorkflows: 0` makes it replay each execution's history on every task.
   */
  withWorker<R>(
    activities: object,
    work: (taskQueue: string) => Promise<R>,
    options?: { taskQueue?: string; workflowBundle?: WorkflowBundleWithSourceMap; maxCachedWorkflows?: number },
  ): Promise<R>;
}

/**
 * The one way a test file gets a time-skipping Temporal environment: call it at the top of the
 * file (or of a describe block); the test server starts in beforeAll, with Herald's workflows
 * bundled once, and stops in afterAll.
 */
export function useTimeSkipping(): TimeSkipping {
  let env: TestWorkflowEnvironment | undefined;
  let bundle: WorkflowBundleWithSourceMap | undefined;
  beforeAll(async () => {
    [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows()]);
  });
  afterAll(async () => {
    await env?.teardown();
  });
  const current = (): TestWorkflowEnvironment => {
    if (!env) throw new Error('useTimeSkipping: the environment exists only inside tests and hooks');
    return env;
  };
  return {
    get env() {
      return current();
    },
    async withWorker(activities, work, options = {}) {
      const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
      const worker = await Worker.create({
        connection: current().nativeConnection,
        taskQueue,
        workflowBundle: options.workflowBundle ?? bundle!,
        activities,
        ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
      });
      return worker.runUntil(() => work(taskQueue));
    },
  };
}

/** The Temporal CLI the dev server's tests run, as built beforehand; throws, saying how to build it, when there is none. */
export async function builtTemporalCli(): Promise<string> {
  const found = await findTemporalCli({ install: false });
  if (!found) throw new Error('No Temporal CLI: `npx tsx temporal/cli.ts` builds it (as .ci/run does)');
  return found;
}
