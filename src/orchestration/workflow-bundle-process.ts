/**
 * The process that bundles Herald's workflows (the module its first argument names) for a worker that has no prebuilt bundle
 * (bundleInChildProcess in workflow-bundle.ts): it answers the bundle's code, or why it could not
 * make it, over its IPC channel and exits, taking webpack's modules and memory with it.
 */
import { bundleWorkflowCode, type Logger } from '@temporalio/worker';
import type { BundleProcessMessage } from './workflow-bundle';

function send(message: BundleProcessMessage): Promise<void> {
  return new Promise((resolve) => process.send!(message, () => resolve()));
}

/** The bundler's warnings and errors go to the worker's log; its progress lines are dropped. */
const bundlerLogger: Logger = {
  log: (level, message) => (level === 'WARN' || level === 'ERROR' ? void send({ type: 'log', level: level === 'WARN' ? 'warn' : 'error', message }) : undefined),
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => void send({ type: 'log', level: 'warn', message }),
  error: (message) => void send({ type: 'log', level: 'error', message }),
};

async function main(): Promise<void> {
  // The worker process that asked is gone (killed, or stopped while this bundled): nobody to answer.
  process.once('disconnect', () => process.exit(1));
  try {
    const { code } = await bundleWorkflowCode({ workflowsPath: process.argv[2], logger: bundlerLogger });
    await send({ type: 'bundle', code });
  } catch (err) {
    await send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
  process.disconnect();
}

if (process.send) void main();
