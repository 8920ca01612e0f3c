import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { logger } from '../logger';
import { MODULE_LOADER_ARGS, ownModule, PACKAGE_ROOT } from '../runtime/module-form';

/** The module the worker bundles: every workflow Herald runs, from its TypeScript sources whatever form runs the worker. */
export const WORKFLOWS_PATH = path.join(PACKAGE_ROOT, 'workflows', 'index.ts');

/** Where `npm run build:workflows` writes the prebuilt workflow bundle. */
export const WORKFLOW_BUNDLE_PATH = path.join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js');

/**
 * WORKFLOW_BUNDLE: `auto` uses the prebuilt bundle when it exists and is not older than the
 * workflow sources, else bundles at start; `prebuilt` requires it (the Docker image); `build`
 * always bundles at start.
 */
export type WorkflowBundleMode = 'auto' | 'prebuilt' | 'build';

/** What the bundle is made of: the workflow sources, and the lock file that pins the SDK. */
function newestSourceMs(): number {
  const dir = path.dirname(WORKFLOWS_PATH);
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => path.join(dir, name));
  files.push(path.resolve(dir, '../package-lock.json'));
  return Math.max(...files.filter((file) => existsSync(file)).map((file) => statSync(file).mtimeMs));
}

/** Whether the prebuilt bundle exists and no workflow source changed after it was built. */
export function prebuiltBundleIsFresh(): boolean {
  return existsSync(WORKFLOW_BUNDLE_PATH) && statSync(WORKFLOW_BUNDLE_PATH).mtimeMs >= newestSourceMs();
}

/** The workflow code option of Worker.create for the mode: the prebuilt bundle, or the code bundled now in a process of its own. */
export async function workflowCode(mode: WorkflowBundleMode): Promise<{ workflowBundle: { codePath: string } | { code: string } }> {
  if (mode === 'prebuilt' && !existsSync(WORKFLOW_BUNDLE_PATH)) {
    throw new Error(`WORKFLOW_BUNDLE=prebuilt but ${WORKFLOW_BUNDLE_PATH} does not exist: run npm run build:workflows`);
  }
  if (mode === 'prebuilt' || (mode === 'auto' && prebuiltBundleIsFresh())) return { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } };
  logger.info('The workflows are bundled at start, in a process of their own');
  return { workflowBundle: { code: await bundleInChildProcess() } };
}

/** What workflow-bundle-process.ts tells the worker process: a line for its log, the bundle, or why there is none. */
export type BundleProcessMessage =
  | { type: 'log'; level: 'warn' | 'error'; message: string }
  | { type: 'bundle'; code: string }
  | { type: 'failed'; message: string };

/**
 * Bundles the workflows (the module at `workflowsPath`) in a child process
 * (workflow-bundle-process.ts) and answers the code.
 * Bundling in the worker's own process would leave webpack loaded there and its heap grown:
 * about 70 MB more resident memory for as long as the worker runs.
 */
export function bundleInChildProcess(workflowsPath = WORKFLOWS_PATH): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = fork(ownModule(__dirname, 'workflow-bundle-process'), [workflowsPath], {
      execArgv: MODULE_LOADER_ARGS,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // A process group of its own: a terminal's Ctrl-C stops the worker, which then ends this process.
      detached: true,
    });
    let outcome: { code: string } | { failed: string } | undefined;
    child.on('message', (message: BundleProcessMessage) => {
      if (message.type === 'log') logger[message.level]({ component: 'workflow bundler' }, message.message);
      else if (message.type === 'bundle') outcome = { code: message.code };
      else outcome = { failed: message.message };
    });
    child.once('error', reject);
    // 'close' comes once the process ended and its IPC channel closed, so after its last message ('exit' may come first).
    child.once('close', (exitCode, signal) => {
      if (outcome && 'code' in outcome) resolve(outcome.code);
      else reject(new Error(`Could not bundle the workflows: ${outcome ? outcome.failed : `the bundling process ended (${signal ?? `exit code ${exitCode}`}) without a bundle`}`));
    });
  });
}

/** Bundles the workflows and writes the bundle to WORKFLOW_BUNDLE_PATH; answers its size in bytes. */
export async function writeWorkflowBundle(): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  mkdirSync(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
  return Buffer.byteLength(code);
}
