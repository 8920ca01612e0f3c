import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import {
  installWorkflowThreadGuard,
  uninstallWorkflowThreadGuard,
  watchWorkflowThreads,
  WORKER_PROCESS_ARGS,
} from '../../src/orchestration/workflow-thread-guard';

/**
 * A thread that makes the calls the Temporal SDK makes into a workflow context, alternately
 * through a compiled script and `vm.runInContext`: each of `callsMs` busies the context that long
 * under a 50 ms `timeout`, the last one throws when `throwLast`; it posts each call's outcome.
 */
const THREAD = `
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');
const context = vm.createContext({});
const code = '{ const end = Date.now() + ms; while (Date.now() < end) {} if (fail) throw new Error("thrown inside"); }';
const busy = new vm.Script(code);
workerData.callsMs.forEach((ms, i) => {
  context.ms = ms;
  context.fail = workerData.throwLast && i === workerData.callsMs.length - 1;
  try {
    if (i % 2 === 0) busy.runInContext(context, { timeout: 50 });
    else vm.runInContext(code, context, { timeout: 50 });
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

/** Runs `main` in a Node process started with WORKER_PROCESS_ARGS, as `npm start` is; resolves with its output lines. */
function inWorkerProcess(main: string): Promise<string[]> {
  const prelude = `
    const { Worker } = require('node:worker_threads');
    const guard = require(${JSON.stringify(require.resolve('../../src/orchestration/workflow-thread-guard'))});
    const slots = () => globalThis[Symbol.for('herald.workflowThreadSlots')].slots;
  `;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...WORKER_PROCESS_ARGS, '-e', prelude + main], (err, stdout) => (err ? reject(err) : resolve(stdout.trim().split('\n')))),
  );
}

describe('the workflow thread guard', () => {
  beforeAll(() => installWorkflowThreadGuard());
  afterAll(() => uninstallWorkflowThreadGuard());

  it('makes calls into a context without the per-call timeout, which the SDK would otherwise enforce', async () => {
    expect((await runThread([], [200])).outcomes).toEqual(['Script execution timed out after 50ms']);
    expect((await runThread([], [10, 200])).outcomes).toEqual(['ran', 'Script execution timed out after 50ms']);
    expect((await runThread(WORKER_PROCESS_ARGS, [200, 200])).outcomes).toEqual(['ran', 'ran']);
  });

  it('reaches the threads a process started with WORKER_PROCESS_ARGS creates without naming them', async () => {
    const output = await inWorkerProcess(`
      const thread = new Worker(${JSON.stringify(THREAD)}, { eval: true, workerData: { callsMs: [200] } });
      thread.on('message', (outcome) => console.log(outcome));
      thread.on('online', () => setTimeout(() => console.log('slots', slots().size), 100));
    `);
    expect(output).toEqual(['slots 1', 'ran']);
  });

  it('turns off in worker threads the source-map lookups tsx turns on, not in the main thread', async () => {
    const output = await inWorkerProcess(`
      console.log('main', process.sourceMapsEnabled);
      new Worker("console.log('thread', process.sourceMapsEnabled)", { eval: true });
    `);
    expect(output).toEqual(['main true', 'thread false']);
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
    const stop = watchWorkflowThreads((threadId, forMs) => stuck.push({ threadId, forMs }), 500, 20);
    try {
      // Short calls, one after the other for longer than the limit in all: nothing to report.
      const short = await runThread(WORKER_PROCESS_ARGS, Array.from({ length: 8 }, () => 100));
      expect(short.outcomes).toHaveLength(8);
      expect(stuck).toEqual([]);
      const long = await runThread(WORKER_PROCESS_ARGS, [1500]);
      expect(long.outcomes).toEqual(['ran']);
      expect(stuck).toHaveLength(1);
      expect(stuck[0].threadId).toBe(long.threadId);
      expect(stuck[0].forMs).toBeGreaterThan(500);
    } finally {
      stop();
    }
  });

  it('forgets a thread ended in the middle of a call', async () => {
    const output = await inWorkerProcess(`
      const stuck = [];
      const stop = guard.watchWorkflowThreads((threadId) => stuck.push(threadId), 1000, 20);
      const thread = new Worker(${JSON.stringify(THREAD)}, { eval: true, workerData: { callsMs: [5000] } });
      // The thread posts its slot once its preload ran and notes in it when its call begins: it is ended in the middle of that call.
      const inCall = () => [...slots().values()].some((slot) => Atomics.load(slot, 0) !== 0n);
      const deadline = Date.now() + 20000;
      const waiting = setInterval(async () => {
        if (!inCall() && Date.now() < deadline) return;
        clearInterval(waiting);
        console.log('slots', slots().size);
        await thread.terminate();
        setTimeout(() => {
          console.log('slots', slots().size, 'stuck', stuck.length);
          stop();
        }, 1500);
      }, 10);
    `);
    expect(output).toEqual(['slots 1', 'slots 0 stuck 0']);
  });
});
