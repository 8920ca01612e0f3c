/**
 * Loaded by `--require` (after tsx/cjs) into every thread of a Herald process that runs a worker
 * (`npm start`, `npm run start:worker`): the workflow thread guard (workflow-thread-guard.ts) and,
 * once in the main thread, the worker's heap growth limit (worker-heap.ts).
 */
import { isMainThread } from 'node:worker_threads';
import { installWorkflowThreadGuard } from './workflow-thread-guard';
import { limitWorkerHeapGrowth } from './worker-heap';

installWorkflowThreadGuard();
if (isMainThread) limitWorkerHeapGrowth();
