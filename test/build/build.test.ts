import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** The test build's link, versions and any link left mid-build. */
function removeBuilds(): void {
  const base = path.basename(OUT);
  for (const name of readdirSync(path.dirname(OUT)).filter((entry) => entry === base || entry.startsWith(`${base}.`))) {
    rmSync(path.join(path.dirname(OUT), name), { recursive: true, force: true });
  }
}

describe('npm run build (scripts/build.js)', () => {
  // Before too: a killed earlier run whose pid this one got would have left a current build.
  beforeAll(removeBuilds);
  afterAll(removeBuilds);

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

    // Paths that count from the module's own directory would miss in the build: the version, the workflows, the bundle, the test server's pom.
    const outcome = JSON.parse(
      await runNode(`
        const { loadConfig } = require(${JSON.stringify(path.join(OUT, 'src/config'))});
        const bundle = require(${JSON.stringify(path.join(OUT, 'src/orchestration/workflow-bundle'))});
        const form = require(${JSON.stringify(path.join(OUT, 'src/runtime/module-form'))});
        const testServer = require(${JSON.stringify(path.join(OUT, 'temporal/test-server'))});
        const tsx = Object.keys(require.cache).filter((file) => file.includes('/node_modules/tsx/'));
        console.log(JSON.stringify({ version: loadConfig({}).version, workflows: bundle.WORKFLOWS_PATH, bundlePath: bundle.WORKFLOW_BUNDLE_PATH, sources: form.RUNS_SOURCES, loader: form.MODULE_LOADER_ARGS, testServer: testServer.testServerVersion(), tsx: tsx.length }));
      `),
    );
    expect(outcome).toEqual({
      version: (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
      workflows: path.join(ROOT, 'workflows/index.ts'),
      bundlePath: path.join(ROOT, 'dist/workflow-bundle.js'),
      sources: false,
      loader: [],
      testServer: /<temporal-test-server\.version>([^<]+)</.exec(readFileSync(path.join(ROOT, 'temporal/pom.xml'), 'utf8'))![1],
      tsx: 0,
    });
  }, 60_000);

  it('writes nothing while the build is current, and builds again once a source is newer', async () => {
    const stamp = path.join(OUT, '.built');
    const builtAt = statSync(stamp).mtimeMs;
    const firstVersion = readlinkSync(OUT);
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
    expect(readlinkSync(OUT)).not.toBe(firstVersion);
  }, 60_000);

  it('gives each build a version of its own, so starts that build at the same time all run a complete tree', async () => {
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(path.join(OUT, '.built'), old, old);
    const builds = await Promise.all([build(), build(), build()]);
    expect(builds.map((run) => run.code)).toEqual([0, 0, 0]);
    expect((await build('--check')).code).toBe(0);
    // Every version built is complete, linked or not: a process started through the link before the next build keeps its tree.
    const versions = readdirSync(path.dirname(OUT)).filter((name) => name.startsWith(`${path.basename(OUT)}.v-`));
    expect(versions.length).toBeGreaterThanOrEqual(2);
    for (const version of versions) expect(existsSync(path.join(path.dirname(OUT), version, 'src/cli/start.js'))).toBe(true);
    expect(versions).toContain(readlinkSync(OUT));
  }, 60_000);

  it("runs the main thread's preload in a thread that would load another build's", async () => {
    const dir = path.dirname(OUT);
    const [mine, other] = readdirSync(dir)
      .filter((name) => name.startsWith(`${path.basename(OUT)}.v-`))
      .map((name) => path.join(dir, name, 'src/orchestration/workflow-thread-preload.js'));
    // A thread started after dist/app was re-pointed: its --require names the other build's preload.
    const guards = await new Promise<string[]>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          '--require',
          mine,
          '-e',
          `const { Worker } = require('node:worker_threads');
           const code = "require('node:worker_threads').parentPort.postMessage(Object.keys(require.cache).filter((file) => file.includes('workflow-thread-guard')))";
           new Worker(code, { eval: true, execArgv: ['--require', ${JSON.stringify(other)}] }).once('message', (files) => { console.log(JSON.stringify(files)); process.exit(0); });`,
        ],
        { cwd: ROOT },
        (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout.trim()) as string[])),
      );
    });
    expect(guards).toEqual([path.join(path.dirname(mine), 'workflow-thread-guard.js')]);
  }, 60_000);

  it('removes a version ten minutes after it was unlinked, however old its build', async () => {
    const dir = path.dirname(OUT);
    const old = new Date('2020-01-01T00:00:00Z');
    // Unlinked long ago (a killed build's, or replaced by a later build).
    const stale = path.join(dir, `${path.basename(OUT)}.v-1-999999`);
    mkdirSync(path.join(stale, 'src'), { recursive: true });
    utimesSync(stale, old, old);
    // Linked until this build, though built long ago: a process may be starting from it.
    const linked = readlinkSync(OUT);
    utimesSync(path.join(dir, linked), old, old);
    utimesSync(path.join(OUT, '.built'), old, old);
    expect((await build()).code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(path.join(dir, linked, 'src/cli/start.js'))).toBe(true);
  }, 60_000);

  it('runs the build it has where the checkout cannot be written, and fails where there is none', async () => {
    // A checkout of its own with the build script, a source and a build older than it, none of it
    // writable by the user that runs the build: root's files for another user, or modes without w.
    const checkout = mkdtempSync(path.join(tmpdir(), 'herald-readonly-'));
    try {
      for (const dir of ['scripts', 'src', 'activities', 'workflows', 'migrations', 'temporal', 'dist/app.v-1-1']) mkdirSync(path.join(checkout, dir), { recursive: true });
      for (const script of ['build.js', 'compile-options.js']) copyFileSync(path.join(ROOT, 'scripts', script), path.join(checkout, 'scripts', script));
      writeFileSync(path.join(checkout, 'src/a.ts'), 'export const a = 1;\n');
      writeFileSync(path.join(checkout, 'dist/app.v-1-1/.built'), 'old\n');
      const old = new Date('2020-01-01T00:00:00Z');
      utimesSync(path.join(checkout, 'dist/app.v-1-1/.built'), old, old);
      symlinkSync('app.v-1-1', path.join(checkout, 'dist/app'));
      const asRoot = process.getuid?.() === 0;
      for (const dir of ['', 'scripts', 'src', 'activities', 'workflows', 'migrations', 'temporal', 'dist', 'dist/app.v-1-1']) {
        chmodSync(path.join(checkout, dir), asRoot ? 0o755 : 0o555);
      }
      // `nobody` where root runs the tests: root may write anywhere.
      const user = asRoot ? { uid: 65534, gid: 65534 } : {};
      const run = () =>
        new Promise<{ code: number; stderr: string }>((resolve) => {
          execFile(process.execPath, [path.join(checkout, 'scripts/build.js')], { cwd: checkout, ...user }, (err, _stdout, stderr) =>
            resolve({ code: err ? Number(err.code) : 0, stderr }),
          );
        });
      const withBuild = await run();
      expect(withBuild.code).toBe(0);
      expect(withBuild.stderr).toMatch(/^Warning: the build in dist\/app is older than the sources but cannot be rewritten here \((EACCES|EPERM|EROFS)\)/);
      expect(readlinkSync(path.join(checkout, 'dist/app'))).toBe('app.v-1-1');

      chmodSync(path.join(checkout, 'dist'), 0o755);
      rmSync(path.join(checkout, 'dist/app'));
      chmodSync(path.join(checkout, 'dist'), asRoot ? 0o755 : 0o555);
      const withNone = await run();
      expect(withNone.code).toBe(1);
      expect(withNone.stderr).toMatch(/^Could not build Herald: .*(EACCES|EPERM|EROFS)/);
    } finally {
      for (const dir of ['', 'dist']) chmodSync(path.join(checkout, dir), 0o755);
      rmSync(checkout, { recursive: true, force: true });
    }
  }, 60_000);

  it('makes a build from before dist/app was a link one of its versions', async () => {
    const dir = path.dirname(OUT);
    const linked = readlinkSync(OUT);
    rmSync(OUT);
    renameSync(path.join(dir, linked), OUT);
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(path.join(OUT, '.built'), old, old);
    expect((await build()).code).toBe(0);
    expect(lstatSync(OUT).isSymbolicLink()).toBe(true);
    // The old directory stays, as any version just unlinked does.
    const kept = readdirSync(dir).filter((name) => name.startsWith(`${path.basename(OUT)}.v-0-`));
    expect(kept).toHaveLength(1);
    expect(existsSync(path.join(dir, kept[0], 'src/cli/start.js'))).toBe(true);
  }, 60_000);
});
