import { createHash } from 'node:crypto';
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { processCommand, processesWorkingIn, processState, stopProcesses } from '../runtime/process-table';
import { ROOT_SHARED_DIR } from './postgres-binaries';
import { reachableBy, type PostgresUser } from './postgres-user';

/**
 * The directory to keep the cluster in. It is `requested`, except when Postgres runs as
 * `user` (Herald runs as root) and that account cannot reach it (a DATA_DIR in a private
 * home directory): then the cluster lives under /var/lib/herald/clusters, in a directory
 * named after DATA_DIR, and `requested` is a symlink to it. A cluster found there without
 * its symlink belonged to a DATA_DIR since deleted and is removed.
 */
export function clusterDirectory(requested: string, user: PostgresUser | undefined): string {
  const target = (() => {
    try {
      return lstatSync(requested).isSymbolicLink() ? path.resolve(path.dirname(requested), readlinkSync(requested)) : undefined;
    } catch {
      return undefined;
    }
  })();
  if (target) {
    mkdirSync(target, { recursive: true });
    return target;
  }
  const parent = path.dirname(requested);
  mkdirSync(parent, { recursive: true });
  if (!user || existsSync(path.join(requested, 'PG_VERSION')) || reachableBy(user, parent)) return requested;
  rmSync(requested, { recursive: true, force: true });
  const shared = path.join(ROOT_SHARED_DIR, 'clusters', createHash('sha256').update(realpathSync(parent)).digest('hex').slice(0, 16));
  rmSync(shared, { recursive: true, force: true });
  mkdirSync(shared, { recursive: true });
  symlinkSync(shared, requested);
  return shared;
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

const isPostgres = (pid: number) => /(^|\/)postgres(:| |$)/.test(processCommand(pid));

/**
 * Stops a Postgres an earlier run left on this cluster (its postmaster with a fast shutdown,
 * then any backend it orphaned), and clears a lock file whose postmaster is gone or a zombie,
 * so that the new postmaster can start at once.
 */
export async function reclaimCluster(directory: string): Promise<{ stopped: number[] }> {
  if (!existsSync(directory)) return { stopped: [] };
  const real = realpathSync(directory);
  const postmaster = recordedPostmaster(directory);
  const stopped: number[] = [];
  if (postmaster && processState(postmaster) === 'running' && isPostgres(postmaster)) {
    await stopProcesses([postmaster], 'SIGINT', 30_000);
    stopped.push(postmaster);
  }
  // Backends of a postmaster that died keep the shared memory attached until they exit.
  const orphans = processesWorkingIn(real).filter(isPostgres);
  await stopProcesses(orphans, 'SIGKILL', 5_000);
  stopped.push(...orphans);
  if (postmaster && !(processState(postmaster) === 'running' && isPostgres(postmaster))) {
    rmSync(path.join(directory, 'postmaster.pid'), { force: true });
  }
  return { stopped };
}
