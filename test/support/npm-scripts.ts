import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The Node arguments an npm script of package.json starts Herald with, after its build step
 * (`node scripts/build.js && exec node <arguments>`), with paths made absolute: tests start
 * Herald's processes exactly as `npm start` and the other start commands do, on the build in
 * dist/app that the test run's global setup makes.
 */
export function npmScriptNodeArgs(script: string): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const command = /^node scripts\/build\.js && exec node (.+)$/.exec(scripts[script] ?? '');
  if (!command) throw new Error(`package.json's ${script} script does not build and then run node: ${scripts[script]}`);
  return command[1].split(' ').map((arg) => (arg.startsWith('-') ? arg : path.resolve(ROOT, arg)));
}
