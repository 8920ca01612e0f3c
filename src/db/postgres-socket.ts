import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * The longest socket path the kernel takes: `sun_path` holds 108 bytes on Linux (104 on macOS),
 * its terminating NUL included; Postgres refuses to start on a longer one.
 */
const MAX_SOCKET_PATH_BYTES = 103;

/** The socket file, and its lock file, that Postgres makes for a port in its socket directory. */
const SOCKET_FILE = /^\.s\.PGSQL\.\d+(\.lock)?$/;

/**
 * The directory where the embedded Postgres makes its Unix socket: the cluster directory itself,
 * which only Postgres's own account (and root) may enter, so the socket is as private as the
 * data. The API's and the worker's connections go through it: a statement sent over a Unix socket costs both
 * ends far less of the kernel's time than one over TCP on loopback. Undefined (TCP on loopback
 * only) when the socket's path would be too long for the kernel, or the directory's name holds a
 * character that Postgres's list of socket directories would split or unquote.
 */
export function socketDirectory(clusterDir: string, port: number): string | undefined {
  const directory = path.resolve(clusterDir);
  if (/[\s,"'\\]/.test(directory)) return undefined;
  if (Buffer.byteLength(path.join(directory, `.s.PGSQL.${port}`)) > MAX_SOCKET_PATH_BYTES) return undefined;
  return directory;
}

/**
 * Removes the socket and socket lock files a killed postmaster left in the cluster directory.
 * Only once no postmaster serves the cluster (reclaimCluster): a lock file naming a process id
 * that another program of the same account has taken since would keep Postgres from starting.
 * Only in a cluster (a directory with PG_VERSION), and only sockets and plain files by those names.
 */
export function removeSocketFiles(clusterDir: string): void {
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) return;
  for (const name of readdirSync(clusterDir)) {
    if (!SOCKET_FILE.test(name)) continue;
    const file = path.join(clusterDir, name);
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat?.isSocket() || stat?.isFile()) rmSync(file, { force: true });
  }
}
