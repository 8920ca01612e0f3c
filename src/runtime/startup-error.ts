/** Where a part of Herald logs, and the last lines it wrote there. */
export interface PartLog {
  file: string;
  tail: string;
}

/**
 * A start-up failure for a reason that is expected to happen (a port taken, a permission,
 * a full disk, a wrong DATABASE_URL): it names the part and the cause, says what to do
 * when that is known, and carries the last lines of the part's own log. Printed without
 * a stack trace.
 */
export class StartupError extends Error {
  constructor(part: string, cause: string, options: { hint?: string; log?: PartLog } = {}) {
    const lines = [`${part}: ${cause}`];
    if (options.hint) lines.push(`  ${options.hint}`);
    if (options.log?.tail) lines.push(`  last lines of ${options.log.file}:`, ...options.log.tail.split('\n').map((line) => `    ${line}`));
    super(lines.join('\n'));
    this.name = 'StartupError';
  }
}

/** What a Node system error code means, in words. */
const SYSTEM_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EADDRINUSE: 'address already in use',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  ETIMEDOUT: 'timed out',
};

/** A Node system error (with `code`) as one line, such as "permission denied: /root/x (EACCES)"; undefined for other errors. */
export function describeSystemError(err: unknown): string | undefined {
  const error = err as NodeJS.ErrnoException | undefined;
  if (!error || typeof error.code !== 'string' || !SYSTEM_ERRORS[error.code]) return undefined;
  const subject = error.path ?? (error as { address?: string }).address ?? (error as { hostname?: string }).hostname;
  const port = (error as { port?: number }).port;
  return `${SYSTEM_ERRORS[error.code]}${subject ? `: ${subject}${port ? `:${port}` : ''}` : ''} (${error.code}${error.syscall ? ` on ${error.syscall}` : ''})`;
}

/** Whether an error is an expected start-up condition, to be printed as its message alone. */
export function isExpectedStartupFailure(err: unknown): boolean {
  return err instanceof StartupError || describeSystemError(err) !== undefined;
}
