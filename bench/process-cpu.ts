/**
 * CPU time of the processes a bench runs, read from /proc (Linux): where a run's time went,
 * process by process. Elsewhere every reading is 0.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second, the unit of /proc/<pid>/stat's times. */
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's parent pid and CPU seconds (user + system); undefined when it is gone. */
function stat(pid: number): { ppid: number; seconds: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by the process alone (its threads, not its children); 0 when it is gone. */
export function ownCpuSeconds(pid: number | undefined): number {
  return pid === undefined ? 0 : (stat(pid)?.seconds ?? 0);
}

/** CPU seconds used so far by the process and every live descendant of it; 0 when it is gone. */
export function treeCpuSeconds(pid: number | undefined): number {
  if (pid === undefined || !existsSync('/proc')) return 0;
  const children = new Map<number, number[]>();
  const seconds = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const child = Number(name);
    if (!Number.isInteger(child)) continue;
    const found = stat(child);
    if (!found) continue;
    seconds.set(child, found.seconds);
    children.set(found.ppid, [...(children.get(found.ppid) ?? []), child]);
  }
  let total = 0;
  for (const queue = [pid]; queue.length > 0; ) {
    const next = queue.pop()!;
    total += seconds.get(next) ?? 0;
    queue.push(...(children.get(next) ?? []));
  }
  return total;
}

/** The pid on the first line of a pid file (Postgres's `postmaster.pid`); undefined when there is none. */
export function pidFromFile(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds of named process trees between start() and the reading. */
export class CpuMeter {
  private readonly base = new Map<string, number>();

  constructor(private readonly processes: Record<string, () => number | undefined>) {}

  start(): void {
    for (const [name, pid] of Object.entries(this.processes)) this.base.set(name, treeCpuSeconds(pid()));
  }

  /** `name 12.3 s` for each process, in the order given. */
  read(): string {
    return Object.entries(this.processes)
      .map(([name, pid]) => `${name} ${(treeCpuSeconds(pid()) - (this.base.get(name) ?? 0)).toFixed(1)} s`)
      .join(', ');
  }
}
