import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Herald runs in one of two forms: its build in dist/app (`npm run build`, what the start
 * commands run) or its TypeScript sources through tsx (the tests, the benches, `npm run
 * build:workflows`). Code that starts a Node process on one of Herald's own modules, or reads a
 * file of the checkout, asks here instead of naming `.ts` files or counting `..` from its own
 * directory, which differ between the two forms.
 */

/** Whether this process runs Herald's TypeScript sources rather than their build. */
export const RUNS_SOURCES = path.extname(__filename) === '.ts';

/** Herald's checkout or install: the nearest directory above this module that holds a package.json. */
export const PACKAGE_ROOT = (() => {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Herald's package.json was not found above ${__dirname}`);
  }
})();

/** The file of Herald's module `name` in directory `dir` (a module's own `__dirname`), in this process's form. */
export function ownModule(dir: string, name: string): string {
  return path.join(dir, `${name}${path.extname(__filename)}`);
}

/** The Node options a process started on one of Herald's modules needs in this process's form: tsx's require hook for the sources. */
export const MODULE_LOADER_ARGS: string[] = RUNS_SOURCES ? ['--require', require.resolve('tsx/cjs')] : [];
