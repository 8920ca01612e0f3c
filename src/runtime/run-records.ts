import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processCommand, processState } from './process-table';

/** What Herald notes under `DATA_DIR/run/<name>.json` about a process it runs, to recognise it after a crash. */
interface RunRecord {
  pid: number;
  /** The command line, compared again so that a pid reused by another program is never taken for it. */
  command: string;
}

const recordFile = (dataDir: string, name: string) => path.join(dataDir, 'run', `${name}.json`);

/** Notes that `pid` runs `name` for this DATA_DIR. */
export function writeRunRecord(dataDir: string, name: string, pid: number): void {
  mkdirSync(path.join(dataDir, 'run'), { recursive: true });
  writeFileSync(recordFile(dataDir, name), JSON.stringify({ pid, command: processCommand(pid) }) + '\n');
}

/** Forgets the process noted for `name`. */
export function removeRunRecord(dataDir: string, name: string): void {
  rmSync(recordFile(dataDir, name), { force: true });
}

/** The pid noted for `name` when that process still runs the same command line; undefined otherwise. */
export function liveRecordedProcess(dataDir: string, name: string): number | undefined {
  let record: RunRecord;
  try {
    record = JSON.parse(readFileSync(recordFile(dataDir, name), 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isInteger(record.pid) || record.pid === process.pid || processState(record.pid) !== 'running') return undefined;
  return processCommand(record.pid) === record.command ? record.pid : undefined;
}
