import vm from 'node:vm';
import { MODULE_LOADER_ARGS, ownModule } from '../runtime/module-form';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

/**
 * The Temporal SDK runs workflow code in worker threads and bounds each call into a workflow's
 * context with `vm`'s `timeout` option (the worker's isolateExecutionTimeout), its guard against
 * workflow code that never yields. Node enforces that option by creating and joining a thread of
 * its own for every call (nodejs/node#47739), and a workflow activation makes several calls: about
 * a quarter of the worker's CPU for a `DELAY -> SEND_EMAIL -> EXIT` execution went to those threads.
 *
 * Herald's worker processes load this guard first in every thread (WORKER_PROCESS_ARGS:
 * `--require`, which Node applies to worker threads too, where tsx's `--import` hooks do not
 * reach). In a workflow thread it makes those calls without the option and notes in a shared slot
 * when the running call began, on the monotonic clock; the main thread reads the slots once a
 * second (watchWorkflowThreads), so a thread stuck in one call is still found, by one timer for
 * all of them instead of a thread per call. A process run without the preload keeps the SDK's
 * own per-call timeout.
 */

/**
 * How Node starts a Herald process that runs a worker (`npm start`, `npm run start:worker`, the
 * tests' and benches' copies of them), in this process's form (src/runtime/module-form.ts): for
 * the sources tsx's require hook first, then the guard.
 */
export const WORKER_PROCESS_ARGS = [...MODULE_LOADER_ARGS, '--require', ownModule(__dirname, 'workflow-thread-preload')];

/** A workflow thread inside one call into a workflow context for this long is stuck. */
export const STUCK_AFTER_MS = 30_000;
const CHECK_EVERY_MS = 1_000;
const CHANNEL = 'herald:workflow-thread-guard';
/** The main thread's slots of its workflow threads, by thread id: one registry whatever module instance reads it. */
const REGISTRY = Symbol.for('herald.workflowThreadSlots');

/** What a workflow thread tells the main thread: where it notes when its running call began. */
interface SlotMessage {
  threadId: number;
  slot: SharedArrayBuffer;
}

type Registry = { slots: Map<number, BigInt64Array>; channel: BroadcastChannel };

function registry(): Registry | undefined {
  return (globalThis as { [REGISTRY]?: Registry })[REGISTRY];
}

/** Whether a call's options ask for a timeout (not a filename string, not left out). */
const timed = <T>(options: T): options is T & { timeout: number } =>
  typeof options === 'object' && options !== null && (options as { timeout?: unknown }).timeout !== undefined;

/** A timed call's options without the timeout. */
function untimed<T extends { timeout?: number }>({ timeout: _timeout, ...rest }: T): Omit<T, 'timeout'> {
  return rest;
}

/**
 * In a workflow thread: calls into a context that ask for a timeout run without it, with the
 * time the outermost one began in a shared slot (0 between calls), posted to the main thread.
 */
function guardThisThread(): void {
  const slot = new BigInt64Array(new SharedArrayBuffer(8));
  let depth = 0;
  const guarded = <R>(call: () => R): R => {
    if (depth++ === 0) Atomics.store(slot, 0, process.hrtime.bigint());
    try {
      return call();
    } finally {
      if (--depth === 0) Atomics.store(slot, 0, 0n);
    }
  };
  const runScript = vm.Script.prototype.runInContext;
  vm.Script.prototype.runInContext = function (this: vm.Script, context: vm.Context, options?: vm.RunningScriptOptions) {
    return timed(options) ? guarded(() => runScript.call(this, context, untimed(options))) : runScript.call(this, context, options);
  };
  const runCode = vm.runInContext;
  vm.runInContext = (code: string, context: vm.Context, options?: vm.RunningCodeOptions | string) =>
    timed(options) ? guarded(() => runCode(code, context, untimed(options))) : runCode(code, context, options);
  // Delivered even though the channel closes at once.
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ threadId, slot: slot.buffer as SharedArrayBuffer } satisfies SlotMessage);
  channel.close();
}

/** In the main thread: collects the slots its workflow threads post as they start. */
function collectSlots(): void {
  if (registry()) return;
  const slots = new Map<number, BigInt64Array>();
  const exited = new Set<number>();
  // A thread ended in the middle of a call (terminated, out of memory) never clears its slot.
  process.on('worker', (thread) => {
    const { threadId: id } = thread;
    thread.once('exit', () => {
      slots.delete(id);
      exited.add(id);
    });
  });
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (message) => {
    const { threadId: id, slot } = (message as { data: SlotMessage }).data;
    if (!exited.has(id)) slots.set(id, new BigInt64Array(slot));
  };
  channel.unref();
  (globalThis as { [REGISTRY]?: Registry })[REGISTRY] = { slots, channel };
}

/**
 * Installs the guard in this thread: once in the main thread (before any worker thread starts) and
 * in each worker thread. A worker thread also runs without Node's source-map lookups, which tsx's
 * require hook turns on in every thread: it runs only JavaScript (the SDK and the workflow bundle,
 * whose stack traces the SDK maps itself), and the SDK captures a stack trace for every promise
 * workflow code creates, each of which would otherwise go through them.
 */
export function installWorkflowThreadGuard(): void {
  if (isMainThread) {
    collectSlots();
    return;
  }
  process.setSourceMapsEnabled(false);
  guardThisThread();
}

/** Stops collecting this thread's slots (a test that installed the guard in its own process). */
export function uninstallWorkflowThreadGuard(): void {
  registry()?.channel.close();
  delete (globalThis as { [REGISTRY]?: Registry })[REGISTRY];
}

/**
 * Checks the workflow threads every second; `onStuck` hears of a thread inside one call for longer
 * than `stuckAfterMs`, once per such call. Returns the stop. Does nothing without the guard.
 */
export function watchWorkflowThreads(onStuck: (threadId: number, forMs: number) => void, stuckAfterMs = STUCK_AFTER_MS, checkEveryMs = CHECK_EVERY_MS): () => void {
  const reported = new Map<number, bigint>();
  const timer = setInterval(() => {
    // The monotonic clock every thread reads alike: a clock set back or forward changes nothing.
    const now = process.hrtime.bigint();
    for (const [id, slot] of registry()?.slots ?? []) {
      const began = Atomics.load(slot, 0);
      if (began === 0n || reported.get(id) === began) continue;
      const forMs = Number((now - began) / 1_000_000n);
      if (forMs <= stuckAfterMs) continue;
      reported.set(id, began);
      onStuck(id, forMs);
    }
  }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
