import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { logger } from '../../src/logger';
import { routeTemporalLogs } from '../../src/temporal/logging';
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
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
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

/** Bundles Herald's workflows (workflows/index.ts) for a test worker. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietBundler });
}
