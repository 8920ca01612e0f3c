import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/** The module the worker bundles: every workflow Herald runs. */
export const WORKFLOWS_PATH = require.resolve('../../workflows');

/** Where `npm run build:workflows` writes the prebuilt workflow bundle. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../dist/workflow-bundle.js');

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

/** The workflow code option of Worker.create for the mode: the prebuilt bundle, or the sources to bundle now. */
export function workflowCode(mode: WorkflowBundleMode): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  if (mode === 'prebuilt' && !existsSync(WORKFLOW_BUNDLE_PATH)) {
    throw new Error(`WORKFLOW_BUNDLE=prebuilt but ${WORKFLOW_BUNDLE_PATH} does not exist: run npm run build:workflows`);
  }
  if (mode === 'prebuilt' || (mode === 'auto' && prebuiltBundleIsFresh())) return { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } };
  return { workflowsPath: WORKFLOWS_PATH };
}

/** Bundles the workflows and writes the bundle to WORKFLOW_BUNDLE_PATH; answers its size in bytes. */
export async function writeWorkflowBundle(): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  mkdirSync(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
  return Buffer.byteLength(code);
}
