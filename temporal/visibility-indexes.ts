import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../src/runtime/module-form';
import { heraldCacheDir, isExecutable, onPath } from './tool-paths';

/**
 * The dev server keeps its visibility records (what the Temporal UI lists and filters) in one
 * SQLite table, `executions_visibility`, with 45 indexes: every workflow start writes all of
 * them and every close rewrites the row through all of them again (a REPLACE), about a third of
 * the dev server's CPU under a steady flow of executions. These indexes serve no query of
 * Herald's or of the Temporal UI's pages on Herald's workflows: the pre-allocated custom slots
 * no registered attribute maps to (Herald's three are Keyword01 to Keyword03), and columns of
 * features Herald does not use (batch operations, activity pause, worker deployments) or that
 * nothing filters on (history length and size, duration, state transitions). A query on such a
 * column still answers, from the table instead of an index.
 *
 * Kept: the default listing, workflow id, type, status, start and execution time, task queue,
 * parent and root, the schedules' attributes and Herald's three keywords.
 */
export const UNUSED_VISIBILITY_INDEXES: readonly string[] = [
  'by_history_length',
  'by_history_size_bytes',
  'by_execution_duration',
  'by_state_transition_count',
  'by_batcher_user',
  'by_temporal_pause_info',
  'by_temporal_worker_deployment_version',
  'by_temporal_workflow_versioning_behavior',
  'by_temporal_worker_deployment',
  ...['01', '02', '03'].flatMap((n) => [`by_bool_${n}`, `by_datetime_${n}`, `by_double_${n}`, `by_int_${n}`]),
  ...['04', '05', '06', '07', '08', '09', '10'].map((n) => `by_keyword_${n}`),
];

/** The Go program (temporal/visibility-indexes) that lists and drops them, with the dev server's own SQLite build. */
const SOURCE_DIR = path.join(PACKAGE_ROOT, 'temporal', 'visibility-indexes');
const SOURCES = ['main.go', 'go.mod', 'go.sum'];

/** Where the program's build for these sources lives: its name carries their hash, so a changed source is built again. */
export function visibilityIndexToolPath(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES) hash.update(readFileSync(path.join(SOURCE_DIR, file)));
  return path.join(heraldCacheDir(), 'bin', `herald-visibility-indexes-${hash.digest('hex').slice(0, 12)}`);
}

/** Runs `command` and answers its standard output; rejects with its standard error when it fails. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${path.basename(command)} ${args.join(' ')} failed (code ${code}): ${stderr.trim()}`))));
  });
}

/**
 * The built program; with `install`, builds it with Go when it is not built yet (a few seconds
 * after the Temporal CLI's build, whose SQLite it shares). Undefined when it is not built and
 * cannot be: then the dev server keeps all its indexes.
 */
export async function findVisibilityIndexTool(options: { install?: boolean; log?: (message: string) => void } = {}): Promise<string | undefined> {
  const tool = visibilityIndexToolPath();
  if (isExecutable(tool)) return tool;
  const go = onPath('go');
  if (!options.install || !go) return undefined;
  options.log?.(`Building ${path.basename(tool)} (go build in ${SOURCE_DIR})`);
  mkdirSync(path.dirname(tool), { recursive: true });
  // Built beside its final name and renamed, so that a start running at the same time never runs half a file.
  const partial = `${tool}.${process.pid}.partial`;
  try {
    await run(go, ['build', '-o', partial, '.'], { cwd: SOURCE_DIR, env: { ...process.env, GOFLAGS: '-mod=readonly -buildvcs=false', GOWORK: 'off' } });
    renameSync(partial, tool);
  } finally {
    rmSync(partial, { force: true });
  }
  return tool;
}

/** The indexes `executions_visibility` has in the dev server database `database`. */
export async function visibilityIndexes(tool: string, database: string): Promise<string[]> {
  return (await run(tool, [database, 'list'])).split('\n').filter(Boolean);
}

/** Drops UNUSED_VISIBILITY_INDEXES from `database` (those it still has); answers the ones dropped. */
export async function dropUnusedVisibilityIndexes(tool: string, database: string): Promise<string[]> {
  return (await run(tool, [database, 'drop', ...UNUSED_VISIBILITY_INDEXES])).split('\n').filter(Boolean);
}
