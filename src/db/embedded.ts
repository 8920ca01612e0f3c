import { chownSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startPart } from '../runtime/managed-part';
import { spawnOwned } from '../runtime/owned-process';
import { describeSystemError, StartupError } from '../runtime/startup-error';
import { ensureFree } from '../runtime/tcp';
import { postgresBinaries, type PostgresBinaries } from './postgres-binaries';
import { clusterDirectory, prepareClusterDirectory, reclaimCluster, removeIfEmpty } from './postgres-cluster';
import { socketDirectory } from './postgres-socket';
import { postgresUser, type PostgresUser } from './postgres-user';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface EmbeddedOptions {
  /** The cluster directory (a symlink to it when Herald, as root, had to place it elsewhere). */
  directory: string;
  port: number;
  password: string;
  database: string;
  /** False: the cluster is deleted when stopped (tests). */
  persistent: boolean;
  /** Where initdb and Postgres write their output. */
  logFile: string;
  log?: (message: string) => void;
  /** The embedded-postgres platform package's `native/` directory; the installed one by default. */
  nativeDir?: string;
  /** Postgres's shared_buffers (`64MB`, `1GB`); DEFAULT_SHARED_BUFFERS when unset. */
  sharedBuffers?: string;
}

/**
 * The embedded Postgres's shared buffers, half Postgres's own default. It shares a small machine
 * with Temporal, the API and the worker, and the kernel's page cache keeps the pages that fall out
 * of it; every Postgres process maps the whole pool and counts in its RSS the buffers it touched,
 * so each busy backend's RSS carries up to the whole pool (see the README's "On a second 2-core
 * machine"). A Postgres of its own (DATABASE_URL) is sized by its operator.
 */
export const DEFAULT_SHARED_BUFFERS = '64MB';

const PART = 'embedded Postgres';
const USER = 'herald';

/**
 * The URL of a database on the embedded Postgres listening on loopback `port`; through its Unix
 * socket in `socketDir` when given (the `host` parameter names the socket's directory).
 */
export const embeddedUrl = (port: number, password: string, database: string, socketDir?: string) =>
  socketDir === undefined
    ? `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`
    : `postgres://${USER}:${encodeURIComponent(password)}@localhost:${port}/${database}?host=${encodeURIComponent(socketDir)}`;

/** What to do about a failure, from the last lines of Postgres's log. */
export function startupHint(tail: string): string | undefined {
  const badFile = /configuration file "([^"]+)" contains errors/.exec(tail);
  if (badFile) return `Correct ${badFile[1]}: Postgres refuses a setting in it (see its log below).`;
  if (/parameter "shared_buffers"|could not (map|create) .*shared memory/i.test(tail)) {
    return `Set EMBEDDED_POSTGRES_SHARED_BUFFERS to a size this machine can give Postgres (${DEFAULT_SHARED_BUFFERS} by default).`;
  }
  if (/No space left on device/i.test(tail)) return 'The disk is full: free some space and start again.';
  if (/Permission denied/i.test(tail)) return 'Postgres cannot reach its files: check the ownership and mode of DATA_DIR, or set DATABASE_URL.';
  if (/Address already in use|could not bind/i.test(tail)) return 'Set EMBEDDED_POSTGRES_PORT to a free port.';
  return undefined;
}

/**
 * Starts Postgres from the embedded-postgres package's binaries, creating the cluster and
 * database on first use. A Postgres that an earlier run left on the cluster is stopped and a
 * stale lock cleared first; Postgres is told to stop if Herald dies (see spawnOwned).
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const user = postgresUser();
  const binaries = postgresBinaries(user, options.nativeDir);
  const directory = clusterDirectory(options.directory, user);
  const { stopped } = await reclaimCluster(directory);
  if (stopped.length > 0) options.log?.(`Stopped the Postgres processes an earlier run left behind (pids ${stopped.join(', ')})`);
  if (!existsSync(path.join(directory, 'PG_VERSION'))) await initialise(binaries, directory, user, options);
  await ensureFree(PART, `127.0.0.1:${options.port}`, 'EMBEDDED_POSTGRES_PORT');

  // TCP on loopback for other programs (and `npm run herald`); the API's and the worker's connections
  // through the Unix socket, when there is one, in the cluster directory (never in /tmp, where a
  // killed postmaster's lock file would stay).
  const socketDir = socketDirectory(directory, options.port);
  const url = (database: string) => embeddedUrl(options.port, options.password, database, socketDir);
  const server = await startPart({
    part: PART,
    command: binaries.postgres,
    args: [
      '-D', directory,
      '-p', String(options.port),
      '-c', 'listen_addresses=127.0.0.1',
      '-c', `unix_socket_directories=${socketDir ?? ''}`,
      '-c', `shared_buffers=${options.sharedBuffers ?? DEFAULT_SHARED_BUFFERS}`,
    ],
    logFile: options.logFile,
    uid: user?.uid,
    gid: user?.gid,
    env: { ...process.env, LC_MESSAGES: 'C' },
    deathSignal: 'SIGINT',
    stopSignal: 'SIGINT',
    stopGraceMs: 30_000,
    // Crash recovery after a kill replays the write-ahead log before Postgres accepts connections.
    startTimeoutMs: 180_000,
    ready: () => connects(url('postgres')),
    hint: startupHint,
    onUnexpectedExit: options.log,
  });
  await ensureDatabase(url('postgres'), options.database);
  return {
    url: url(options.database),
    stop: async () => {
      await server.stop();
      if (!options.persistent) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Runs initdb (UTF-8, Unicode-aware case mapping with the builtin C.UTF-8 locale, password
 * authentication) beside the cluster directory and moves the result into place, so that a
 * crash during initdb never leaves a half-made cluster to be taken for a real one.
 */
async function initialise(binaries: PostgresBinaries, directory: string, user: PostgresUser | undefined, options: EmbeddedOptions): Promise<void> {
  const staging = `${directory}.initdb`;
  rmSync(staging, { recursive: true, force: true });
  prepareClusterDirectory(staging, user);
  // A private directory of a random name: no other account can read the password or plant a link there.
  const secrets = mkdtempSync(path.join(tmpdir(), 'herald-initdb-'));
  const passwordFile = path.join(secrets, 'password');
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600, flag: 'wx' });
  if (user) {
    chownSync(secrets, user.uid, user.gid);
    chownSync(passwordFile, user.uid, user.gid);
  }
  try {
    const init = spawnOwned({
      command: binaries.initdb,
      args: [
        `--pgdata=${staging}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`,
        '--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--locale=C', '--lc-messages=C',
      ],
      logFile: options.logFile,
      uid: user?.uid,
      gid: user?.gid,
      deathSignal: 'SIGTERM',
    });
    const outcome = await new Promise<string | undefined>((resolve) => {
      init.child.once('error', (err) => resolve(describeSystemError(err) ?? err.message));
      init.child.once('exit', (code, signal) => resolve(code === 0 ? undefined : `initdb failed (${signal ?? `code ${code}`})`));
    });
    if (outcome) {
      rmSync(staging, { recursive: true, force: true });
      const tail = init.logTail();
      throw new StartupError(PART, `could not create the cluster in ${directory}: ${outcome}`, { hint: startupHint(tail), log: { file: options.logFile, tail } });
    }
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
  removeIfEmpty(directory);
  renameSync(staging, directory);
}

async function connects(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}
