/**
 * Loaded by `--require` (after tsx/cjs) into every thread of a Herald process that runs a worker
 * (`npm start`, `npm run start:worker`): see workflow-thread-guard.ts.
 */
import { installWorkflowThreadGuard } from './workflow-thread-guard';

installWorkflowThreadGuard();
