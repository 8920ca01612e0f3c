import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { linkedInto, stageBeside } from './staged-file';

/** Secrets that are generated once and kept under DATA_DIR when not configured. */
export function storedSecrets(dataDir: string): Record<string, string> {
  const file = path.join(dataDir, 'secrets.json');
  const existing: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  for (const key of ['sessionSecret', 'tokenSecret', 'mailEventsSecret', 'postgresPassword']) {
    if (!existing[key]) {
      existing[key] = randomBytes(24).toString('base64url');
      changed = true;
    }
  }
  if (!changed) return existing;
  // Written whole beside the file, then put in place: a first file by link, so that of two
  // starts at the same instant one writes and the other reads what it wrote.
  const staged = stageBeside(file, JSON.stringify(existing, null, 2), 0o600);
  try {
    if (existsSync(file)) renameSync(staged, file);
    else if (!linkedInto(staged, file)) return storedSecrets(dataDir);
  } finally {
    rmSync(staged, { force: true });
  }
  return existing;
}
