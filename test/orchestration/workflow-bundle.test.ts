import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { bundleInChildProcess } from '../../src/orchestration/workflow-bundle';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Runs `main` in a Node process started as `npm start` is, on the build in dist/app and without
 * tsx (`detached`: in a process group of its own); resolves with its last output line, parsed.
 */
async function runProcess(main: string, options: { detached?: boolean } = {}): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['-e', main], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
    ...options,
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const [code, signal] = await once(child, 'close');
  if (code !== 0) throw new Error(`The process ended with ${signal ?? `exit code ${code}`}: ${stdout}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

describe('bundling the workflows at start', () => {
  it('makes the bundle in a process of its own: the worker process never loads webpack', async () => {
    const outcome = await runProcess(`
      const { workflowCode } = require('./dist/app/src/orchestration/workflow-bundle');
      workflowCode('build').then(({ workflowBundle }) => {
        // Importing the SDK loads webpack's index alone (its parts are lazy); bundling loads its compiler.
        const webpack = Object.keys(require.cache).filter((file) => file.includes('/node_modules/webpack/lib/Compiler'));
        const tsx = Object.keys(require.cache).filter((file) => file.includes('/node_modules/tsx/'));
        const workflows = ['runWorkflowExecutionV2', 'housekeeping'].filter((name) => workflowBundle.code.includes(name));
        console.log(JSON.stringify({ workflows, webpackModules: webpack.length, tsxModules: tsx.length }));
      });
    `);
    expect(outcome.webpackModules).toBe(0);
    expect(outcome.tsxModules).toBe(0);
    expect(outcome.workflows).toEqual(['runWorkflowExecutionV2', 'housekeeping']);
  }, 120_000);

  it("bundles on when a Ctrl-C reaches the worker's process group", async () => {
    const outcome = await runProcess(
      `
      const { bundleInChildProcess } = require('./dist/app/src/orchestration/workflow-bundle');
      const bundled = bundleInChildProcess();
      // What a terminal's Ctrl-C does: SIGINT to every process of this process's group (its own, and it stays).
      process.on('SIGINT', () => undefined);
      setTimeout(() => process.kill(0, 'SIGINT'), 300);
      bundled.then(
        (code) => console.log(JSON.stringify({ bundled: code.includes('runWorkflowExecutionV2') })),
        (err) => console.log(JSON.stringify({ failed: err.message })),
      );
    `,
      { detached: true },
    );
    expect(outcome).toEqual({ bundled: true });
  }, 120_000);

  it('answers why when the workflows cannot be bundled', async () => {
    await expect(bundleInChildProcess(path.join(ROOT, 'workflows/no-such-module.ts'))).rejects.toThrow(/^Could not bundle the workflows: ENOENT.*no-such-module/);
  }, 120_000);
});
