import { claimRunRecord, removeRunRecord } from './run-records';
import type { Shutdown } from './shutdown';
import { StartupError } from './startup-error';

const RECORD = 'herald';

/**
 * Makes this process the one Herald running on DATA_DIR: a Herald still running there is
 * reported (two would fight over its Postgres and Temporal); one that died is replaced,
 * and what it left is reclaimed by the parts as they start.
 */
export function claimDataDir(dataDir: string, shutdown: Shutdown): void {
  const running = claimRunRecord(dataDir, RECORD, process.pid);
  if (running !== undefined) {
    const who = running > 0 ? ` (pid ${running})` : '';
    throw new StartupError('DATA_DIR', `another Herald is running on ${dataDir}${who}`, {
      hint: `Stop it first${running > 0 ? ` (kill ${running})` : ''}, or start this one with another DATA_DIR.`,
    });
  }
  shutdown.add('run record', async () => removeRunRecord(dataDir, RECORD));
}
