/**
 * The process that bundles Herald's workflows (the module its first argument names) for a worker that has no prebuilt bundle
 * (bundleInChildProcess in workflow-bundle.ts): it answers the bundle's code, or why it could not
 * make it, over its IPC channel and exits, taking webpack's modules and memory with it.
 */
import type { Logger } from '@temporalio/worker';
import type { BundleProcessMessage } from './workflow-bundle';

// A stop signal sent to every process of the worker (systemd stops a service's whole control
// group) is the worker's to act on: this process ends once the worker has gone (the disconnect
// handler in main), never as a failed bundling. Set before the SDK loads, which takes a moment.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);

function send(message: BundleProcessMessage): Promise<void> {
  return new Promise((resolve) => process.send!(message, () => resolve()));
}

/** Sends a line of the bundler's output to the worker's log. */
const forward = (level: 'warn' | 'error') => (message: string) => void send({ type: 'log', level, message });

/**
 * The bundler's errors, and its report when webpack warned (the SDK logs that report, warnings
 * included, at info), go to the worker's log; its other progress lines are dropped.
 */
const bundlerLogger: Logger = {
  log: (level, message) => bundlerLogger[level === 'ERROR' ? 'error' : level === 'WARN' ? 'warn' : 'info'](message),
  trace: () => undefined,
  debug: () => undefined,
  info: (message) => (message.includes('WARNING in') ? forward('warn')(message) : undefined),
  warn: forward('warn'),
  error: forward('error'),
};

async function main(): Promise<void> {
  // 0 once the bundle is handed over; until then the worker process that asked going away (killed,
  // or stopped while this bundled) ends this one as a failure: nobody to answer.
  let exitCode = 1;
  process.once('disconnect', () => process.exit(exitCode));
  try {
    const { bundleWorkflowCode } = await import('@temporalio/worker');
    const { code } = await bundleWorkflowCode({ workflowsPath: process.argv[2], logger: bundlerLogger });
    await send({ type: 'bundle', code });
    exitCode = 0;
  } catch (err) {
    await send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
  process.disconnect();
}

if (process.send) void main();
