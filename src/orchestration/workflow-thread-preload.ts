/**
 * Loaded by `--require` into every thread of a Herald process that runs a worker (`npm start`,
 * `npm run start:worker`): the workflow thread guard (workflow-thread-guard.ts) and, once in the
 * main thread, the worker's heap growth limit (worker-heap.ts).
 *
 * A thread resolves the `--require` path again when it starts. Started after a build re-pointed
 * dist/app (scripts/build.js), it would load the newer build's guard beside the main thread's
 * older one; the main thread therefore names the preload it ran, and a thread runs that one.
 */
import { isMainThread } from 'node:worker_threads';

/** The environment variable (copied into every thread) naming the main thread's preload file. */
const MAIN_PRELOAD = 'HERALD_THREAD_PRELOAD';

if (isMainThread) process.env[MAIN_PRELOAD] = __filename;
const mainPreload = process.env[MAIN_PRELOAD];
if (!isMainThread && mainPreload && mainPreload !== __filename) {
  require(mainPreload);
} else {
  // Required here, not imported: a thread that runs the main thread's preload must not load this build's guard too.
  (require('./workflow-thread-guard') as typeof import('./workflow-thread-guard')).installWorkflowThreadGuard();
  if (isMainThread) (require('./worker-heap') as typeof import('./worker-heap')).limitWorkerHeapGrowth();
}
