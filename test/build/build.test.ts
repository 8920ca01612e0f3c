import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** Inside the checkout, so that the built modules find node_modules and package.json as dist/app's do. */
const OUT = path.join(ROOT, 'dist', `build-test-${process.pid}`);

function build(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'scripts/build.js'), `--out=${OUT}`, ...args], { cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

function runNode(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' } }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim())));
  });
}

describe('npm run build (scripts/build.js)', () => {
  afterAll(() => rmSync(OUT, { recursive: true, force: true }));

  it('compiles every module, each with its source map, and the built form runs without tsx', async () => {
    const first = await build();
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^Built \d+ modules into /);
    const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
    const missing = sources.filter((name) => !existsSync(path.join(OUT, 'src', name.replace(/\.ts$/, '.js'))));
    expect(missing).toEqual([]);
    const map = JSON.parse(readFileSync(path.join(OUT, 'src/config.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
    expect(map.sources.some((source) => source.endsWith('src/config.ts'))).toBe(true);
    expect(map.sourcesContent).toBeUndefined();

    // Paths that count from the module's own directory would miss in the build: the version, the workflows, the bundle.
    const outcome = JSON.parse(
      await runNode(`
        const { loadConfig } = require(${JSON.stringify(path.join(OUT, 'src/config'))});
        const bundle = require(${JSON.stringify(path.join(OUT, 'src/orchestration/workflow-bundle'))});
        const form = require(${JSON.stringify(path.join(OUT, 'src/runtime/module-form'))});
        const tsx = Object.keys(require.cache).filter((file) => file.includes('/node_modules/tsx/'));
        console.log(JSON.stringify({ version: loadConfig({}).version, workflows: bundle.WORKFLOWS_PATH, bundlePath: bundle.WORKFLOW_BUNDLE_PATH, sources: form.RUNS_SOURCES, loader: form.MODULE_LOADER_ARGS, tsx: tsx.length }));
      `),
    );
    expect(outcome).toEqual({
      version: (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
      workflows: path.join(ROOT, 'workflows/index.ts'),
      bundlePath: path.join(ROOT, 'dist/workflow-bundle.js'),
      sources: false,
      loader: [],
      tsx: 0,
    });
  }, 60_000);

  it('writes nothing while the build is current, and builds again once a source is newer', async () => {
    const stamp = path.join(OUT, '.built');
    const builtAt = statSync(stamp).mtimeMs;
    const again = await build();
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(statSync(stamp).mtimeMs).toBe(builtAt);
    expect((await build('--check')).code).toBe(0);

    // As if every source had changed after the build.
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(stamp, old, old);
    expect((await build('--check')).code).toBe(1);
    const rebuilt = await build();
    expect(rebuilt.stderr).toMatch(/^Built \d+ modules/);
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(old.getTime());
    expect(readdirSync(path.dirname(OUT)).filter((name) => name.startsWith(`${path.basename(OUT)}.`))).toEqual([]);
  }, 60_000);
});
