import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes `content` whole to a new file of a fresh name beside `file` (created, never written
 * through an existing file or link) and answers its path, to be renamed or linked into place;
 * the caller removes it afterwards.
 */
export function stageBeside(file: string, content: string, mode = 0o644): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const staged = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}`);
  writeFileSync(staged, content, { mode, flag: 'wx' });
  return staged;
}

/** Links `staged` into place as `file` unless `file` exists: of two processes at the same instant, one wins. */
export function linkedInto(staged: string, file: string): boolean {
  try {
    linkSync(staged, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
