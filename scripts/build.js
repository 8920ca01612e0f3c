#!/usr/bin/env node
/**
 * `npm run build`: compiles Herald's TypeScript (src, activities, workflows, migrations, temporal)
 * to JavaScript in dist/app, one file per module, which is what `npm start` and the other start
 * commands run. Running the build instead of the sources through tsx spares every process tsx's
 * loader and the source maps it keeps in memory (about 25 MB at rest, and in each workflow
 * thread too). Each module's source map is written beside it: `NODE_OPTIONS=--enable-source-maps`
 * gives stack traces in TypeScript lines.
 *
 * Nothing is written when the build is newer than every source, so starts of an unchanged
 * checkout never race. Otherwise the whole tree is built into a version directory of its own and
 * dist/app, a symbolic link, then pointed at it (see build), so no start ever loads a
 * half-written build or has its tree changed under it. Where the checkout cannot be written (a
 * container's image, a read-only mount) an existing build is run as it is, with a warning.
 * With `--check` it only says whether the build is current (exit 0) or not (exit 1).
 */
'use strict';
const { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { compileOptions } = require('./compile-options');

const ROOT = path.resolve(__dirname, '..');
/** `--out=<dir>` builds elsewhere (the build's own tests); the start commands run dist/app. */
const OUT = path.resolve(process.argv.find((arg) => arg.startsWith('--out='))?.slice('--out='.length) ?? path.join(ROOT, 'dist', 'app'));
/** Written last: the build is complete, and as new as its mtime. */
const STAMP = '.built';
const SOURCE_DIRS = ['src', 'activities', 'workflows', 'migrations', 'temporal'];
/** Files whose change changes the build besides the sources. */
const INPUTS = ['tsconfig.json', 'package-lock.json', path.relative(ROOT, __filename), 'scripts/compile-options.js'];

/** The TypeScript modules to compile (no declarations), and the directories that hold them. */
function sources() {
  const modules = [];
  const dirs = [];
  for (const dir of SOURCE_DIRS) {
    dirs.push(path.join(ROOT, dir));
    for (const entry of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      const file = path.join(entry.parentPath ?? entry.path, entry.name);
      if (entry.isDirectory()) dirs.push(file);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) modules.push(file);
    }
  }
  return { modules, dirs };
}

/** Whether dist/app holds a complete build newer than every source and input. */
function isCurrent({ modules, dirs }) {
  const stamp = path.join(OUT, STAMP);
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  // A directory's mtime changes when a module is added, removed or renamed in it.
  const inputs = [...modules, ...dirs, ...INPUTS.map((name) => path.join(ROOT, name))];
  return inputs.every((file) => !existsSync(file) || statSync(file).mtimeMs <= built);
}

/** How long a version of the build stays after it was unlinked: a process may still be starting from it. */
const SWEEP_AFTER_MS = 10 * 60_000;

/** Runs a filesystem step that another build may have done first (ENOENT: the entry is gone already). */
function unlessGone(step) {
  try {
    step();
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}

/**
 * Builds the modules into a version directory of their own (`app.v-<time>-<pid>` beside
 * dist/app) and points dist/app, a symbolic link, at it in one rename. A process resolves its
 * modules through the link once, at start (Node follows it to the version's own path), so a
 * build never changes a tree under a process that runs it, and starts that build at the same
 * time each put a complete tree in place. A version that was unlinked is removed ten minutes
 * later, by a later build, so that a process still starting from it finds its files.
 */
async function build(modules, startedAt) {
  const dir = path.dirname(OUT);
  const base = path.basename(OUT);
  const version = `${base}.v-${startedAt}-${process.pid}`;
  // Made here rather than by esbuild, whose failure to write carries no error code (see READ_ONLY).
  mkdirSync(path.join(dir, version));
  try {
    await require('esbuild').build({
      entryPoints: modules,
      outdir: path.join(dir, version),
      outbase: ROOT,
      ...compileOptions,
      sourcemap: 'linked',
      sourcesContent: false,
    });
    // The stamp bears the time the sources were read: a source saved during the build is newer, and built next time.
    const stamp = path.join(dir, version, STAMP);
    writeFileSync(stamp, `${new Date(startedAt).toISOString()}\n`);
    utimesSync(stamp, new Date(startedAt), new Date(startedAt));
  } catch (err) {
    rmSync(path.join(dir, version), { recursive: true, force: true });
    throw err;
  }

  // A build from before dist/app was a link is a directory: it becomes a version like the others.
  let previous;
  if (existsSync(OUT) && !lstatSync(OUT).isSymbolicLink()) {
    previous = `${base}.v-0-${process.pid}`;
    unlessGone(() => renameSync(OUT, path.join(dir, previous)));
  } else if (existsSync(OUT)) {
    previous = readlinkSync(OUT);
  }
  const link = path.join(dir, `${base}.link-${process.pid}`);
  rmSync(link, { force: true });
  symlinkSync(version, link);
  renameSync(link, OUT);
  // Unlinked now: its ten minutes start.
  if (previous && previous !== version) unlessGone(() => utimesSync(path.join(dir, previous), new Date(), new Date()));

  // Killed builds leave versions and links behind too; a build running now is younger than this.
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (name === version || !(name.startsWith(`${base}.v-`) || name.startsWith(`${base}.link-`))) continue;
    unlessGone(() => {
      if (now - lstatSync(path.join(dir, name)).mtimeMs > SWEEP_AFTER_MS) rmSync(path.join(dir, name), { recursive: true, force: true });
    });
  }
}

/** Errors of a checkout Herald may not write to (a container's image, a read-only mount). */
const READ_ONLY = ['EACCES', 'EPERM', 'EROFS'];

async function main() {
  const where = path.relative(process.cwd(), OUT) || '.';
  // Before the sources are read: the build's stamp bears this time (see build).
  const startedAt = Date.now();
  const found = sources();
  const current = isCurrent(found);
  if (process.argv.includes('--check')) {
    console.log(current ? `The build in ${where} is current.` : `The build in ${where} is missing or older than the sources: run npm run build.`);
    process.exit(current ? 0 : 1);
  }
  if (current) return;
  try {
    mkdirSync(path.dirname(OUT), { recursive: true });
    await build(found.modules, startedAt);
    console.error(`Built ${found.modules.length} modules into ${where} in ${Date.now() - startedAt} ms`);
  } catch (err) {
    if (!READ_ONLY.includes(err.code) || !existsSync(path.join(OUT, STAMP))) throw err;
    console.error(`Warning: the build in ${where} is older than the sources but cannot be rewritten here (${err.code}); running it as it is. Run npm run build where it can be written.`);
  }
}
main().catch((err) => {
  console.error(`Could not build Herald: ${err && err.message ? err.message : err}`);
  process.exit(1);
});
