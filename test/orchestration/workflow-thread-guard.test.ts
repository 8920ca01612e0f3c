import { Worker } from 'node:worker_threads';
import {
  installWorkflowThreadGuard,
  uninstallWorkflowThreadGuard,
  watchWorkflowThreads,
  WORKER_PROCESS_ARGS,
} from '../../src/orchestration/workflow-thread-guard';

/**
 * A thread that makes the calls the Temporal SDK makes into a workflow context: each of
 * `callsMs` busies the context that long under a 50 ms `timeout`, the last one throws when
 * `throwLast`; it posts each call's outcome.
 */
const THREAD = `
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');
const context = vm.createContext({});
const busy = new vm.Script('{ const end = Date.now() + ms; while (Date.now() < end) {} if (fail) throw new Error("thrown inside"); }');
workerData.callsMs.forEach((ms, i) => {
  context.ms = ms;
  context.fail = workerData.throwLast && i === workerData.callsMs.length - 1;
  try {
    busy.runInContext(context, { timeout: 50 });
    parentPort.postMessage('ran');
  } catch (err) {
    parentPort.postMessage(err.message);
  }
});
`;

/** Runs THREAD with these Node arguments; resolves with its outcomes and its thread id once it exited. */
function runThread(execArgv: string[], callsMs: number[], throwLast = false): Promise<{ outcomes: string[]; threadId: number }> {
  return new Promise((resolve, reject) => {
    const outcomes: string[] = [];
    const thread = new Worker(THREAD, { eval: true, execArgv, workerData: { callsMs, throwLast } });
    const { threadId } = thread;
    thread.on('message', (outcome: string) => outcomes.push(outcome));
    thread.on('error', reject);
    thread.on('exit', () => resolve({ outcomes, threadId }));
  });
}

describe('the workflow thread guard', () => {
  beforeAll(() => installWorkflowThreadGuard());
  afterAll(() => uninstallWorkflowThreadGuard());

  it('makes calls into a context without the per-call timeout, which the SDK would otherwise enforce', async () => {
    expect((await runThread([], [200])).outcomes).toEqual(['Script execution timed out after 50ms']);
    expect((await runThread(WORKER_PROCESS_ARGS, [200, 10])).outcomes).toEqual(['ran', 'ran']);
  });

  it('lets an error thrown inside a call through, and notes the call as over', async () => {
    const stuck: number[] = [];
    const stop = watchWorkflowThreads((threadId) => stuck.push(threadId), 100, 20);
    try {
      expect((await runThread(WORKER_PROCESS_ARGS, [5, 5], true)).outcomes).toEqual(['ran', 'thrown inside']);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stuck).toEqual([]);
    } finally {
      stop();
    }
  });

  it('reports a thread inside one call for longer than the limit, once for that call', async () => {
    const stuck: { threadId: number; forMs: number }[] = [];
    const stop = watchWorkflowThreads((threadId, forMs) => stuck.push({ threadId, forMs }), 300, 20);
    try {
      // Short calls, one after the other for longer than the limit in all: nothing to report.
      const short = await runThread(WORKER_PROCESS_ARGS, Array.from({ length: 8 }, () => 80));
      expect(short.outcomes).toHaveLength(8);
      expect(stuck).toEqual([]);
      const long = await runThread(WORKER_PROCESS_ARGS, [1000]);
      expect(long.outcomes).toEqual(['ran']);
      expect(stuck).toHaveLength(1);
      expect(stuck[0].threadId).toBe(long.threadId);
      expect(stuck[0].forMs).toBeGreaterThan(300);
    } finally {
      stop();
    }
  });
});
