import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { processArgs, processCwd, processesWorkingIn, processState, stopProcesses } from '../runtime/process-table';
import { StartupError } from '../runtime/startup-error';
import { ROOT_SHARED_DIR } from './postgres-binaries';
import { removeSocketFiles } from './postgres-socket';
import { reachableBy, type PostgresUser } from './postgres-user';

const CLUSTERS_DIR = path.join(ROOT_SHARED_DIR, 'clusters');

/**
 * The directory to keep the cluster in. It is `requested`, except when Postgres runs as
 * `user` (Herald runs as root) and that account cannot reach it (a DATA_DIR in a private
 * home directory): then the cluster lives in a directory of its own under
 * /var/lib/herald/clusters, and `requested` is a symlink to it. As root, DATA_DIR must be
 * root's and writable by nobody else, and only a symlink into /var/lib/herald/clusters is followed.
 */
export function clusterDirectory(requested: string, user: PostgresUser | undefined): string {
  const parent = path.dirname(requested);
  mkdirSync(parent, { recursive: true });
  if (user) ensureRootOwned(parent);
  const target = symlinkTarget(requested);
  if (target) {
    if (user && !isInside(CLUSTERS_DIR, target)) {
      throw new StartupError('embedded Postgres', `${requested} is a link to ${target}, outside ${CLUSTERS_DIR}`, {
        hint: 'As root Herald follows only the links it made; move the cluster into DATA_DIR/postgres.',
      });
    }
    mkdirSync(target, { recursive: true });
    return target;
  }
  if (!user || existsSync(path.join(requested, 'PG_VERSION')) || reachableBy(user, parent)) return requested;
  mkdirSync(CLUSTERS_DIR, { recursive: true, mode: 0o755 });
  chmodSync(CLUSTERS_DIR, 0o755);
  // A directory of its own, never one another DATA_DIR (or a copy of this one) may point to.
  const name = createHash('sha256').update(realpathSync(parent)).digest('hex').slice(0, 12);
  const shared = mkdtempSync(path.join(CLUSTERS_DIR, `${name}-`));
  removeIfEmpty(requested);
  symlinkSync(shared, requested);
  return shared;
}

function symlinkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? path.resolve(path.dirname(file), readlinkSync(file)) : undefined;
  } catch {
    return undefined;
  }
}

const isInside = (directory: string, file: string) => !path.relative(directory, file).startsWith('..');

/** As root: DATA_DIR must belong to root and be writable by no other account, or another account could redirect what root writes there. */
function ensureRootOwned(directory: string): void {
  const stat = statSync(directory);
  if (stat.uid === 0 && (stat.mode & 0o022) === 0) return;
  throw new StartupError('embedded Postgres', `DATA_DIR ${directory} belongs to uid ${stat.uid} or is writable by other accounts, and Herald runs as root`, {
    hint: `Run Herald as the account that owns it, or make it root's alone (chown root ${directory}; chmod go-w ${directory}).`,
  });
}

/** Removes `directory` when it is empty (an interrupted earlier start); anything else in its place is not Herald's to delete. */
export function removeIfEmpty(directory: string): void {
  if (!existsSync(directory)) return;
  if (readdirSync(directory).length > 0) {
    throw new StartupError('embedded Postgres', `${directory} is not empty and holds no Postgres cluster (no PG_VERSION)`, {
      hint: 'Move its contents away, or point DATA_DIR somewhere else; Herald deletes nothing it did not make.',
    });
  }
  rmdirSync(directory);
}

/** Creates the cluster directory owned by the account Postgres runs as. */
export function prepareClusterDirectory(directory: string, user: PostgresUser | undefined): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (user) chownSync(directory, user.uid, user.gid);
}

/** The postmaster pid recorded in the cluster's lock file, if any. */
function recordedPostmaster(directory: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process is a Postgres server process (a postmaster, `.../postgres`, or a backend, `postgres: ...`). */
function isPostgres(pid: number): boolean {
  const first = processArgs(pid)[0] ?? '';
  return first.startsWith('postgres:') || path.basename(first) === 'postgres';
}

/** Whether `pid` is the postmaster of this cluster: a Postgres working in it (Linux), or started with `-D` naming it. */
function isPostmasterOf(pid: number, directory: string, real: string): boolean {
  if (processState(pid) !== 'running' || !isPostgres(pid)) return false;
  const cwd = processCwd(pid);
  if (cwd !== undefined) return cwd === real;
  const args = processArgs(pid);
  const data = args[args.indexOf('-D') + 1];
  return args.includes('-D') && (data === directory || data === real);
}

/**
 * Stops a Postgres an earlier run left on this cluster (its postmaster with a fast shutdown,
 * then any backend it orphaned), and clears a lock file whose postmaster is gone or a zombie,
 * and the socket files it left, so that the new postmaster can start at once.
 */
export async function reclaimCluster(directory: string): Promise<{ stopped: number[] }> {
  if (!existsSync(directory)) return { stopped: [] };
  const real = realpathSync(directory);
  const postmaster = recordedPostmaster(directory);
  const stopped: number[] = [];
  if (postmaster && isPostmasterOf(postmaster, directory, real)) {
    await stopProcesses([postmaster], 'SIGINT', 30_000);
    stopped.push(postmaster);
  }
  // Backends of a postmaster that died keep the shared memory attached until they exit.
  const orphans = processesWorkingIn(real).filter(isPostgres);
  await stopProcesses(orphans, 'SIGKILL', 5_000);
  stopped.push(...orphans);
  if (postmaster && !isPostmasterOf(postmaster, directory, real)) {
    rmSync(path.join(directory, 'postmaster.pid'), { force: true });
  }
  removeSocketFiles(directory);
  return { stopped };
}
