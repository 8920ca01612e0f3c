import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { StartupError } from '../runtime/startup-error';

/** The account Postgres runs as when Herald runs as root (Postgres refuses to run as root). */
export interface PostgresUser {
  uid: number;
  gid: number;
}

const NAME = 'postgres';

function lookup(): PostgresUser | undefined {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith(`${NAME}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Undefined unless Herald runs as root; then the `postgres` account, created when missing. */
export function postgresUser(): PostgresUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = lookup();
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', NAME], { stdio: 'pipe' });
  } catch (err) {
    const detail = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    throw new StartupError('embedded Postgres', `Postgres does not run as root, and the "${NAME}" account it would run as could not be created (${detail})`, {
      hint: `Create a "${NAME}" user, run Herald as a normal user, or set DATABASE_URL to an external Postgres.`,
    });
  }
  return lookup()!;
}

/** Whether `user` can traverse to (directory) or execute (file) `target`. */
export function reachableBy(user: PostgresUser, target: string): boolean {
  const probe = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', target], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return probe.status === 0;
}
