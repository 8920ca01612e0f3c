import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../src/runtime/module-form';
import { processState } from '../src/runtime/process-table';
import { heraldCacheDir, isExecutable, onPath, runTool } from './tool-paths';

/**
 * The dev server keeps its visibility records (what the Temporal UI lists and filters) in one
 * SQLite table, `executions_visibility`, with 45 indexes: every workflow start writes all of
 * them and every close rewrites the row in all of them again (an upsert; each index holds the
 * close time), about a third of the dev server's CPU under a steady flow of executions. Herald
 * keeps the indexes that serve a query of its own or of the Temporal UI's pages.
 *
 * These serve none: columns of features Herald does not use (batch operations, activity pause,
 * worker deployments) or that nothing filters on (history length and size, duration, state
 * transitions). Always dropped. A query on such a column still answers, from the table.
 */
export const UNQUERIED_VISIBILITY_INDEXES: readonly string[] = [
  'by_history_length',
  'by_history_size_bytes',
  'by_execution_duration',
  'by_state_transition_count',
  'by_batcher_user',
  'by_temporal_pause_info',
  'by_temporal_worker_deployment_version',
  'by_temporal_workflow_versioning_behavior',
  'by_temporal_worker_deployment',
];

/**
 * The pre-allocated custom search attribute columns the schema indexes. A registered attribute
 * is mapped to one of its type's columns at random (Herald's three Keywords among the ten
 * `Keyword` ones), so which indexes serve a query is known only from the namespace's mapping.
 */
export const SLOT_COLUMNS: readonly string[] = [
  ...['Bool', 'Datetime', 'Double', 'Int'].flatMap((type) => ['01', '02', '03'].map((n) => `${type}${n}`)),
  ...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10'].map((n) => `Keyword${n}`),
];

/** The schema's index of a slot column: `Keyword04` -> `by_keyword_04`. */
export function slotIndex(column: string): string {
  const [, type, n] = /^([A-Za-z]+)(\d+)$/.exec(column) ?? [];
  return `by_${type.toLowerCase()}_${n}`;
}

export interface VisibilityIndexChanges {
  drop: string[];
  /** Slot columns mapped to an attribute whose index an earlier run dropped (the schema's definition is created again). */
  create: string[];
}

/**
 * What to change given the slot columns mapped to a search attribute (the namespace's
 * `customSearchAttributeAliases`): the unqueried indexes and the unmapped slots' indexes go,
 * a mapped slot gets its index back. With the mapping unknown every slot keeps its index.
 */
export function visibilityIndexChanges(mappedSlots: readonly string[] | undefined): VisibilityIndexChanges {
  if (!mappedSlots) return { drop: [...UNQUERIED_VISIBILITY_INDEXES], create: [] };
  return {
    drop: [...UNQUERIED_VISIBILITY_INDEXES, ...SLOT_COLUMNS.filter((column) => !mappedSlots.includes(column)).map(slotIndex)],
    create: SLOT_COLUMNS.filter((column) => mappedSlots.includes(column)),
  };
}

/** The Go program (temporal/visibility-indexes) that makes the changes, with the dev server's own SQLite build. */
const SOURCE_DIR = path.join(PACKAGE_ROOT, 'temporal', 'visibility-indexes');
const SOURCES = ['main.go', 'go.mod', 'go.sum'];
const TOOL_PREFIX = 'herald-visibility-indexes-';

/** Where the program's build for these sources lives: its name carries their hash, so a changed source is built again. */
export function visibilityIndexToolPath(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES) hash.update(readFileSync(path.join(SOURCE_DIR, file)));
  return path.join(heraldCacheDir(), 'bin', `${TOOL_PREFIX}${hash.digest('hex').slice(0, 12)}`);
}

/**
 * Removes the builds of other sources and the partial files of interrupted builds; not the
 * partial file of a build another process is running now (its name carries that process's id).
 */
function removeOtherBuilds(tool: string): void {
  const dir = path.dirname(tool);
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(TOOL_PREFIX) || name === path.basename(tool)) continue;
    const builder = /\.(\d+)\.partial$/.exec(name)?.[1];
    if (builder !== undefined && processState(Number(builder)) === 'running') continue;
    rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * The built program; with `install`, builds it with Go when it is not built yet (seconds when
 * Herald built the Temporal CLI with the same Go, whose SQLite build it shares; the first time
 * otherwise, a minute or two). Undefined when it is not built and cannot be: then the dev
 * server keeps all its indexes.
 */
export async function findVisibilityIndexTool(options: { install?: boolean; log?: (message: string) => void } = {}): Promise<string | undefined> {
  const tool = visibilityIndexToolPath();
  if (isExecutable(tool)) return tool;
  const go = onPath('go');
  if (!options.install || !go) return undefined;
  options.log?.(`Building ${path.basename(tool)} once (go build in ${SOURCE_DIR})`);
  mkdirSync(path.dirname(tool), { recursive: true });
  // Built beside its final name and renamed, so that a start running at the same time never runs half a file.
  const partial = `${tool}.${process.pid}.partial`;
  try {
    await runTool(`go build in ${SOURCE_DIR}`, go, ['build', '-o', partial, '.'], { cwd: SOURCE_DIR, env: { ...process.env, GOFLAGS: '-mod=readonly -buildvcs=false', GOWORK: 'off' } });
    renameSync(partial, tool);
  } finally {
    rmSync(partial, { force: true });
  }
  removeOtherBuilds(tool);
  return tool;
}

/** The indexes `executions_visibility` has in the dev server database `database`. */
export async function visibilityIndexes(tool: string, database: string): Promise<string[]> {
  return (await runTool(path.basename(tool), tool, [database, 'list'])).split('\n').filter(Boolean);
}

/**
 * Makes the changes in `database`, in one transaction, while no server has it open; answers
 * what it did (`dropped <index>`, `created <index>`), nothing for what was so already.
 */
export async function applyVisibilityIndexChanges(tool: string, database: string, changes: VisibilityIndexChanges): Promise<string[]> {
  const args = [...changes.drop.map((name) => `drop:${name}`), ...changes.create.map((column) => `create:${column}`)];
  return (await runTool(path.basename(tool), tool, [database, 'apply', ...args])).split('\n').filter(Boolean);
}
