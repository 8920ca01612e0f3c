import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stopProcesses } from '../src/runtime/process-table';
import { liveRecordedProcess, removeRunRecord, writeRunRecord } from '../src/runtime/run-records';
import { ensureFree } from '../src/runtime/tcp';
import { spawnServer } from './server-process';
import { applyVisibilityIndexChanges, visibilityIndexChanges } from './visibility-indexes';

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Bool' | 'Datetime' | 'Double' | 'KeywordList';

export interface DevServerOptions {
  cliPath: string;
  /** Holds `temporal.sqlite` (so workflows survive restarts), `logs/temporal.log` and the run record. */
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  searchAttributes?: Record<string, SearchAttributeType>;
  /** SQLite pragmas of the dev server's database; SQLITE_PRAGMAS unless given ([] = SQLite's defaults). */
  sqlitePragmas?: string[];
  /**
   * Dynamic config values (`--dynamic-config-value`) over Herald's own: QUEUE_CONFIG, and
   * SEARCH_ATTRIBUTES_CONFIG when the database holds these search attributes as it starts (attributesRegistered).
   */
  dynamicConfig?: Record<string, string | number | boolean>;
  /**
   * The program that drops the visibility indexes no query uses (temporal/visibility-indexes.ts)
   * while no server has the database open: before the server opens an existing one, and for a
   * new one between the CLI's creating it and a second start; without it the database keeps all.
   */
  visibilityIndexTool?: string;
  log?: (message: string) => void;
}

export interface DevServer {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

const PART = 'Temporal dev server';
const RECORD = 'temporal';

/**
 * SQLite in write-ahead-log mode with `synchronous=NORMAL`: a commit is safe once it is in the
 * log, which survives any crash of the process; only a power loss or kernel crash can lose the
 * last commits (never corrupting the file). About twice the workflow throughput of the default.
 * The log is copied back into the database every 10,000 pages (40 MB) instead of SQLite's 1,000,
 * so a page the server rewrites often is copied once per checkpoint rather than ten times, and
 * temporary tables and sorts stay in memory.
 */
export const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal', 'wal_autocheckpoint=10000', 'temp_store=memory'];

/**
 * The CLI turns on `system.forceSearchAttributesCacheRefreshOnRead`, so that attributes added
 * at run time show at once: every read of the namespace's search attributes (each workflow
 * start carrying them, each visibility record) then goes to the database, through SQLite's one
 * connection, which serialises it with every other write. Without it, an attribute added while
 * the server runs is refused ("no mapping defined") until the cache refreshes. So Herald turns it
 * off when the database holds these attributes as the server starts: a new one (the CLI
 * registers them while creating it), or one an earlier run saw holding them (ATTRIBUTES_RECORD).
 * A DATA_DIR from before an attribute was added gets the CLI's own setting for that run.
 */
export const SEARCH_ATTRIBUTES_CONFIG: Record<string, string | number | boolean> = {
  'system.forceSearchAttributesCacheRefreshOnRead': false,
};

/**
 * Each of the history service's task queues (transfer, timer, visibility) keeps every task it
 * loaded, done or not, until its next checkpoint, every 30 s by default; and each time a task is
 * written it merges the new range into the queue's last slice, which walks all the tasks kept.
 * Under a steady flow of workflow starts and ends (a few hundred tasks a second) that is
 * thousands of tasks walked per write: about a tenth of the dev server's CPU. A checkpoint every
 * second keeps a second's worth; it also records the queues' progress, so that after a crash the
 * server runs again only the tasks of the last second instead of up to the last 30.
 */
export const QUEUE_CONFIG: Record<string, string | number | boolean> = {
  'history.transferProcessorUpdateAckInterval': '1s',
  'history.timerProcessorUpdateAckInterval': '1s',
  'history.visibilityProcessorUpdateAckInterval': '1s',
};

/** The search attributes (of those asked for) the dev server's database held when it last started, in DATA_DIR. */
const ATTRIBUTES_RECORD = 'temporal-search-attributes.json';

/**
 * The custom search attribute columns the namespace mapped to an attribute when the server last
 * started, in DATA_DIR; written only when every attribute asked for was registered then, so
 * that the index of one Herald adds later is never dropped.
 */
const SLOTS_RECORD = 'temporal-search-attribute-slots.json';

function recordedSlots(dataDir: string): string[] | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dataDir, SLOTS_RECORD), 'utf8')) as string[];
  } catch {
    return undefined;
  }
}

/**
 * Drops the visibility indexes no query uses, and creates those of slot columns mapped since
 * theirs was dropped, with the tool, when there is one; only while no server has the database
 * open. A failure is logged and leaves the indexes as they are: the server runs the same with
 * them, only slower.
 */
async function trimVisibilityIndexes(options: DevServerOptions, database: string): Promise<void> {
  if (!options.visibilityIndexTool) return;
  try {
    const changes = visibilityIndexChanges(recordedSlots(options.dataDir));
    const done = await applyVisibilityIndexChanges(options.visibilityIndexTool, database, changes);
    const dropped = done.filter((line) => line.startsWith('dropped ')).length;
    const created = done.filter((line) => line.startsWith('created ')).length;
    if (dropped) options.log?.(`Dropped ${dropped} visibility indexes of the ${PART} that no query uses`);
    if (created) options.log?.(`Created ${created} visibility indexes of the ${PART} for search attributes added since`);
  } catch (err) {
    options.log?.(`The ${PART}'s visibility indexes stay as they are: ${(err as Error).message}`);
  }
}

const databaseFile = (dataDir: string) => path.join(dataDir, 'temporal.sqlite');

/** The attributes as ATTRIBUTES_RECORD holds them: sorted by name. */
const attributesText = (attributes: Record<string, SearchAttributeType>) => JSON.stringify(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)));

/**
 * Whether the database holds these search attributes before the server serves: a new database
 * (the CLI registers every `--search-attribute` while creating it), or one an earlier run saw
 * holding them all.
 */
function attributesRegistered(dataDir: string, attributes: Record<string, SearchAttributeType>): boolean {
  if (!existsSync(databaseFile(dataDir))) return true;
  const record = path.join(dataDir, ATTRIBUTES_RECORD);
  return existsSync(record) && readFileSync(record, 'utf8') === attributesText(attributes);
}

/**
 * Starts `temporal server start-dev` on loopback with persistent SQLite and resolves once it
 * serves the namespace. A dev server an earlier run left behind on this DATA_DIR is stopped first.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  mkdirSync(options.dataDir, { recursive: true });
  const leftover = liveRecordedProcess(options.dataDir, RECORD);
  if (leftover) {
    options.log?.(`Stopping the ${PART} an earlier run left behind (pid ${leftover})`);
    await stopProcesses([leftover], 'SIGTERM', 10_000);
  }
  removeRunRecord(options.dataDir, RECORD);
  const address = `127.0.0.1:${options.port}`;
  await ensureFree(PART, address, 'TEMPORAL_PORT');
  await ensureFree(`${PART} UI`, `127.0.0.1:${options.uiPort}`, 'TEMPORAL_UI_PORT');

  const database = databaseFile(options.dataDir);
  const existed = existsSync(database);
  if (existed) await trimVisibilityIndexes(options, database);
  const attributes = options.searchAttributes ?? {};
  const dynamicConfig = {
    ...QUEUE_CONFIG,
    ...(attributesRegistered(options.dataDir, attributes) ? SEARCH_ATTRIBUTES_CONFIG : {}),
    ...options.dynamicConfig,
  };
  const args = [
    'server',
    'start-dev',
    '--db-filename', database,
    ...(options.sqlitePragmas ?? SQLITE_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ...Object.entries(dynamicConfig).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--ui-port', String(options.uiPort),
    '--namespace', options.namespace,
    '--log-level', 'warn',
  ];
  for (const [name, type] of Object.entries(attributes)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  // The CLI registers `--search-attribute` on a new database only; Herald adds the others while it runs.
  let registered: Record<string, SearchAttributeType> = {};
  let slots: string[] = [];
  const spawn = () =>
    spawnServer({
      name: PART,
      command: options.cliPath,
      args,
      address,
      logFile: path.join(options.dataDir, 'logs', 'temporal.log'),
      ready: async (connection) => {
        const { config } = await connection.workflowService.describeNamespace({ namespace: options.namespace });
        slots = Object.keys(config?.customSearchAttributeAliases ?? {}).sort();
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: options.namespace });
        registered = Object.fromEntries(Object.entries(attributes).filter(([name]) => name in (customAttributes ?? {})));
      },
      startTimeoutMs: 60_000,
      stopGraceMs: 10_000,
      log: options.log,
      // Recorded at once, so that a start killed before the server was ready still finds it next time.
      onSpawn: (pid) => writeRunRecord(options.dataDir, RECORD, pid, [options.cliPath, ...args]),
    });
  let server = await spawn();
  writeFileSync(path.join(options.dataDir, ATTRIBUTES_RECORD), attributesText(registered));
  if (Object.keys(registered).length === Object.keys(attributes).length) writeFileSync(path.join(options.dataDir, SLOTS_RECORD), JSON.stringify(slots));
  else rmSync(path.join(options.dataDir, SLOTS_RECORD), { force: true });
  if (!existed && options.visibilityIndexTool) {
    // The CLI created it just now, with every index: once more, with the indexes trimmed while the server is stopped (a second or two, once).
    await server.stop();
    await trimVisibilityIndexes(options, database);
    server = await spawn();
  }
  return {
    address,
    uiUrl: `http://127.0.0.1:${options.uiPort}`,
    stop: async () => {
      await server.stop();
      removeRunRecord(options.dataDir, RECORD);
    },
  };
}
