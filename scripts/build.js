#!/usr/bin/env node
/**
 * `npm run build`: compiles Herald's TypeScript (src, activities, workflows, migrations, temporal)
 * to JavaScript in dist/app, one file per module, which is what `npm start` and the other start
 * commands run. Running the build instead of the sources through tsx spares every process tsx's
 * loader and the source maps it keeps in memory (about 25 MB at rest, and in each workflow
 * thread too). Each module's source map is written beside it: `NODE_OPTIONS=--enable-source-maps`
 * gives stack traces in TypeScript lines.
 *
 * Nothing is written when the build is newer than every source (so starts of an unchanged
 * checkout never race). Otherwise the whole tree is built in a directory of its own and then
 * put in place of the old one, so no start ever loads a half-written build.
 * With `--check` it only says whether the build is current (exit 0) or not (exit 1).
 */
'use strict';
const { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** `--out=<dir>` builds elsewhere (the build's own tests); the start commands run dist/app. */
const OUT = path.resolve(process.argv.find((arg) => arg.startsWith('--out='))?.slice('--out='.length) ?? path.join(ROOT, 'dist', 'app'));
/** Written last: the build is complete, and as new as its mtime. */
const STAMP = '.built';
const SOURCE_DIRS = ['src', 'activities', 'workflows', 'migrations', 'temporal'];
/** Files whose change changes the build besides the sources. */
const INPUTS = ['tsconfig.json', 'package-lock.json', path.relative(ROOT, __filename)];

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

/** Renames, answering false when `from` is gone or `to` is taken (another build got there first). */
function moved(from, to) {
  try {
    renameSync(from, to);
    return true;
  } catch (err) {
    if (['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes(err.code)) return false;
    throw err;
  }
}

async function build(files) {
  const esbuild = require('esbuild');
  const staging = `${OUT}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: files,
    outdir: staging,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  });
  writeFileSync(path.join(staging, STAMP), `${new Date().toISOString()}\n`);
  const old = `${OUT}.old-${process.pid}`;
  moved(OUT, old);
  // A build that ran at the same time may have put its tree in place first: it is the same build.
  if (!moved(staging, OUT)) rmSync(staging, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}

async function main() {
  const found = sources();
  const current = isCurrent(found);
  if (process.argv.includes('--check')) {
    const where = path.relative(process.cwd(), OUT) || '.';
    console.log(current ? `The build in ${where} is current.` : `The build in ${where} is missing or older than the sources: run npm run build.`);
    process.exit(current ? 0 : 1);
  }
  if (current) return;
  mkdirSync(path.dirname(OUT), { recursive: true });
  const started = Date.now();
  await build(found.modules);
  console.error(`Built ${found.modules.length} modules into ${path.relative(process.cwd(), OUT) || '.'} in ${Date.now() - started} ms`);
}

main().catch((err) => {
  console.error(`Could not build Herald: ${err && err.message ? err.message : err}`);
  process.exit(1);
});
