import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** What the process table says of a pid: alive, exited but not yet reaped by its parent, or gone. */
export type ProcessState = 'running' | 'zombie' | 'gone';

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * The fields of `/proc/<pid>/stat` from field 3 (the state) on, split at spaces; undefined when
 * the process is gone. The command name before them is in parentheses and may hold spaces.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The state of a process; a zombie holds no port, file or lock any more. */
export function processState(pid: number): ProcessState {
  if (!Number.isInteger(pid) || pid <= 0) return 'gone';
  if (HAS_PROC) {
    const state = statFields(pid)?.[0];
    if (state === undefined) return 'gone';
    return state === 'Z' || state === 'X' ? 'zombie' : 'running';
  }
  const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  const state = ps.stdout?.trim() ?? '';
  if (state === '') return 'gone';
  return state.startsWith('Z') ? 'zombie' : 'running';
}

/** The parent pid of a process (Linux only); undefined when it cannot be read. */
export function processParent(pid: number): number | undefined {
  const parent = statFields(pid)?.[1];
  return parent === undefined ? undefined : Number(parent);
}

/** The pids of all processes (Linux only; [] elsewhere). */
export function allProcesses(): number[] {
  return HAS_PROC ? readdirSync('/proc').map(Number).filter((pid) => Number.isInteger(pid) && pid > 0) : [];
}

/** The arguments of a live process (argv[0] first); [] when they cannot be read. Without /proc, split at spaces. */
export function processArgs(pid: number): string[] {
  if (HAS_PROC) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg !== '');
    } catch {
      return [];
    }
  }
  const ps = spawnSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  return (ps.stdout?.trim() ?? '').split(/\s+/).filter((arg) => arg !== '');
}

/** The command line of a live process, its arguments joined by spaces; '' when it cannot be read. */
export function processCommand(pid: number): string {
  return processArgs(pid).join(' ');
}

/** When a process started, as the system tells it (clock ticks since boot on Linux); '' when it cannot be read. */
export function processStartTime(pid: number): string {
  // Field 22 of /proc/<pid>/stat.
  if (HAS_PROC) return statFields(pid)?.[19] ?? '';
  const ps = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' });
  return ps.stdout?.trim() ?? '';
}

/** The working directory of a process (Linux only); undefined when it cannot be read. */
export function processCwd(pid: number): string | undefined {
  try {
    return HAS_PROC ? readlinkSync(`/proc/${pid}/cwd`) : undefined;
  } catch {
    return undefined;
  }
}

/** The pids of live processes whose working directory is `directory` (Linux only; [] elsewhere). */
export function processesWorkingIn(directory: string): number[] {
  return allProcesses().filter((pid) => pid !== process.pid && processCwd(pid) === directory && processState(pid) === 'running');
}

/** Sends a signal, ignoring a process that is already gone. */
export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Resolves true once none of `pids` runs any more (gone or zombie), false after `timeoutMs`. */
export async function waitForExit(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (pids.every((pid) => processState(pid) !== 'running')) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Asks processes to stop with `politely`, and kills those still running after `graceMs`. */
export async function stopProcesses(pids: number[], politely: NodeJS.Signals, graceMs: number): Promise<void> {
  if (pids.length === 0) return;
  for (const pid of pids) signal(pid, politely);
  if (await waitForExit(pids, graceMs)) return;
  for (const pid of pids) signal(pid, 'SIGKILL');
  await waitForExit(pids, 5_000);
}
