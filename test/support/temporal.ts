import { IllegalStateError } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
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
  quietSdkLogs();
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

/** Keeps the SDK's logs (worker, workflow and core, INFO and WARN by default) out of test output, errors aside. */
function quietSdkLogs(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}
