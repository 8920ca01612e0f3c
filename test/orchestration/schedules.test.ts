import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InterceptingCall, status, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { ensureIntervalSchedule, type IntervalSchedule } from '../../src/orchestration/schedules';
import { startDevServer, type DevServer } from '../../temporal/dev-server';
import { freePort } from '../support/ports';
import { builtTemporalCli } from '../support/temporal';

/** A workflow named by the schedules (none of them runs within a test: their interval is minutes). */
async function scheduledWork(): Promise<void> {}

/**
 * Answers the first `times` calls of a WorkflowService method with `code`, after the server
 * handled them: as a server does whose answer timed out (a dev server restarted after a crash,
 * whose scheduler is not answering yet). Counts every call of the method in `calls`.
 */
function failing(method: string, times: number, code = status.DEADLINE_EXCEEDED) {
  const calls = { count: 0 };
  const interceptor: Interceptor = (options, nextCall) => {
    if (!options.method_definition.path.endsWith(`/${method}`)) return new InterceptingCall(nextCall(options));
    calls.count += 1;
    if (calls.count > times) return new InterceptingCall(nextCall(options));
    return new InterceptingCall(nextCall(options), {
      start: (metadata, _listener, next) =>
        next(metadata, {
          onReceiveStatus: (received, nextStatus) => nextStatus({ ...received, code, details: 'context deadline exceeded' }),
        }),
    });
  };
  return { interceptor, calls };
}

describe('interval schedules ensured at start-up (ensureIntervalSchedule)', () => {
  let dataDir: string;
  let server: DevServer;
  const connections: Connection[] = [];

  beforeAll(async () => {
    const cliPath = await builtTemporalCli();
    dataDir = mkdtempSync(path.join(tmpdir(), 'herald-schedules-'));
    server = await startDevServer({ cliPath, dataDir, port: await freePort(), uiPort: await freePort(), namespace: 'default' });
  });
  afterAll(async () => {
    for (const connection of connections) await connection.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A client of the dev server whose calls pass through `interceptors` only (no retries of the SDK's own). */
  const clientWith = async (...interceptors: Interceptor[]) => {
    const connection = await Connection.connect({ address: server.address, interceptors });
    connections.push(connection);
    return new Client({ connection, namespace: 'default' });
  };
  let n = 0;
  const schedule = (everyMinutes: number): IntervalSchedule => ({
    scheduleId: `herald-schedule-test-${(n += 1)}`,
    everyMinutes,
    workflow: scheduledWork,
    summary: 'A schedule of the test',
    taskQueue: 'schedules-test',
    withoutSchedules: 'no schedules',
  });
  const intervalOf = async (scheduleId: string) => {
    const described = await (await clientWith()).schedule.getHandle(scheduleId).describe();
    return described.spec.intervals?.map((interval) => interval.every);
  };

  it('creates the schedule through answers that timed out, once it was created by one of them', async () => {
    const create = failing('CreateSchedule', 2);
    const wanted = schedule(5);
    await ensureIntervalSchedule(await clientWith(create.interceptor), wanted);
    // The first call created it; the next ones found it and brought it to the interval.
    expect(create.calls.count).toBe(3);
    expect(await intervalOf(wanted.scheduleId)).toEqual([5 * 60_000]);
  });

  it('brings an existing schedule to its interval through timeouts of describing it', async () => {
    const wanted = schedule(5);
    await ensureIntervalSchedule(await clientWith(), wanted);
    const describe = failing('DescribeSchedule', 2);
    await ensureIntervalSchedule(await clientWith(describe.interceptor), { ...wanted, everyMinutes: 7 });
    expect(describe.calls.count).toBe(3);
    expect(await intervalOf(wanted.scheduleId)).toEqual([7 * 60_000]);
  });

  it('gives up with the server\'s error once the time to try again is over', async () => {
    const wanted = schedule(5);
    await ensureIntervalSchedule(await clientWith(), wanted);
    const describe = failing('DescribeSchedule', Number.POSITIVE_INFINITY, status.UNAVAILABLE);
    const ensured = ensureIntervalSchedule(await clientWith(describe.interceptor), { ...wanted, everyMinutes: 9 }, 1_500);
    await expect(ensured).rejects.toMatchObject({ cause: { code: status.UNAVAILABLE } });
    expect(describe.calls.count).toBeGreaterThanOrEqual(2);
    expect(await intervalOf(wanted.scheduleId)).toEqual([5 * 60_000]);
  });

  it('does not try again an error that is not a timeout', async () => {
    const wanted = schedule(5);
    const create = failing('CreateSchedule', 1, status.PERMISSION_DENIED);
    await expect(ensureIntervalSchedule(await clientWith(create.interceptor), wanted)).rejects.toMatchObject({ cause: { code: status.PERMISSION_DENIED } });
    expect(create.calls.count).toBe(1);
  });
});
