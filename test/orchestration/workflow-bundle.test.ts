import { execFile } from 'node:child_process';
import path from 'node:path';
import { bundleInChildProcess } from '../../src/orchestration/workflow-bundle';

const ROOT = path.resolve(__dirname, '../..');

/** Runs `main` in a Node process started as `npm start` is; resolves with its last output line, parsed. */
function runProcess(main: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--require', 'tsx/cjs', '-e', main], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' } }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>),
    ),
  );
}

describe('bundling the workflows at start', () => {
  it('makes the bundle in a process of its own: the worker process never loads webpack', async () => {
    const outcome = await runProcess(`
      const { workflowCode } = require('./src/orchestration/workflow-bundle');
      workflowCode('build').then(({ workflowBundle }) => {
        // Importing the SDK loads webpack's index alone (its parts are lazy); bundling loads its compiler.
        const webpack = Object.keys(require.cache).filter((file) => file.includes('/node_modules/webpack/lib/Compiler'));
        const workflows = ['runWorkflowExecutionV2', 'housekeeping'].filter((name) => workflowBundle.code.includes(name));
        console.log(JSON.stringify({ workflows, webpackModules: webpack.length }));
      });
    `);
    expect(outcome.webpackModules).toBe(0);
    expect(outcome.workflows).toEqual(['runWorkflowExecutionV2', 'housekeeping']);
  }, 120_000);

  it('answers why when the workflows cannot be bundled', async () => {
    await expect(bundleInChildProcess(path.join(ROOT, 'workflows/no-such-module.ts'))).rejects.toThrow(/^Could not bundle the workflows: ENOENT.*no-such-module/);
  }, 120_000);
});
