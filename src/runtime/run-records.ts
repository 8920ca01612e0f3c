import { readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { processCommand, processStartTime, processState } from './process-table';
import { linkedInto, stageBeside } from './staged-file';

/** What Herald notes under `DATA_DIR/run/<name>.json` about a process it runs, to recognise it after a crash. */
interface RunRecord {
  pid: number;
  /** The command line and start time, compared again so that a pid reused by another program is never taken for it. */
  command: string;
  startTime: string;
}

const recordFile = (dataDir: string, name: string) => path.join(dataDir, 'run', `${name}.json`);

/** The record of `pid` (running `command`, by default what it runs now) staged beside `name`'s, to be moved or linked into place. */
function stage(dataDir: string, name: string, pid: number, command = processCommand(pid)): string {
  const record: RunRecord = { pid, command, startTime: processStartTime(pid) };
  return stageBeside(recordFile(dataDir, name), JSON.stringify(record) + '\n');
}

/**
 * Notes that `pid` runs `name` for this DATA_DIR (replacing the file whole, never writing
 * through a link). `command` is the command line it will show once it has exec'd, for a
 * process recorded as soon as it was spawned.
 */
export function writeRunRecord(dataDir: string, name: string, pid: number, command?: string[]): void {
  renameSync(stage(dataDir, name, pid, command?.join(' ')), recordFile(dataDir, name));
}

/**
 * Notes that `pid` runs `name`, unless a live process already holds the record: answers that
 * process's pid then (0 when another start won the record at the same instant). Two claims
 * at the same instant cannot both succeed.
 */
export function claimRunRecord(dataDir: string, name: string, pid: number): number | undefined {
  const staged = stage(dataDir, name, pid);
  const file = recordFile(dataDir, name);
  try {
    if (linkedInto(staged, file)) return undefined;
    const holder = liveRecordedProcess(dataDir, name);
    if (holder) return holder;
    removeRunRecord(dataDir, name);
    if (linkedInto(staged, file)) return undefined;
    return liveRecordedProcess(dataDir, name) ?? 0;
  } finally {
    rmSync(staged, { force: true });
  }
}

/** Forgets the process noted for `name`. */
export function removeRunRecord(dataDir: string, name: string): void {
  rmSync(recordFile(dataDir, name), { force: true });
}

/** The pid noted for `name` when that same process still runs (same command line and start time); undefined otherwise. */
export function liveRecordedProcess(dataDir: string, name: string): number | undefined {
  let record: RunRecord;
  try {
    record = JSON.parse(readFileSync(recordFile(dataDir, name), 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isInteger(record.pid) || record.pid === process.pid || processState(record.pid) !== 'running') return undefined;
  return processCommand(record.pid) === record.command && processStartTime(record.pid) === record.startTime ? record.pid : undefined;
}
