/**
 * The resident memory of Herald's processes during the campaign bench, read from /proc (Linux):
 * each part is a root process with its descendants (the API process, the worker process, the
 * Temporal dev server, the Postgres server's tree), each process counted once. RSS counts pages
 * shared between processes (Postgres's shared buffers) once per process; PSS shares them out.
 * Elsewhere every reading is 0.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * Resident memory in bytes: RSS counts a shared page in every process that maps it, PSS shares it
 * out. `shmem` is the part of RSS in shared memory (Postgres's shared buffers), summed over the
 * processes like RSS, `maxShmem` the most of it in any one process, `processes` how many were read.
 */
export interface Memory {
  rss: number;
  pss: number;
  shmem: number;
  maxShmem: number;
  processes: number;
}

/** The memory of the parts' trees, in total and by part. */
export interface TreeMemory extends Memory {
  parts: Record<string, Memory>;
}

/** A `<field>: <n> kB` line of a /proc file, in bytes; 0 when absent. */
const kbField = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;

/** Bytes of one process's memory as /proc/<pid>/smaps_rollup and status report them; undefined when it is gone. */
function memoryOf(pid: number): Memory | undefined {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const shmem = kbField(readFileSync(`/proc/${pid}/status`, 'utf8'), 'RssShmem');
    return { rss: kbField(rollup, 'Rss'), pss: kbField(rollup, 'Pss'), shmem, maxShmem: shmem, processes: 1 };
  } catch {
    return undefined;
  }
}

/** Adds `memory` into `into`. */
function add(into: Memory, memory: Memory): void {
  into.rss += memory.rss;
  into.pss += memory.pss;
  into.shmem += memory.shmem;
  into.maxShmem = Math.max(into.maxShmem, memory.maxShmem);
  into.processes += memory.processes;
}

const none = (): Memory => ({ rss: 0, pss: 0, shmem: 0, maxShmem: 0, processes: 0 });

/** The children and the command name of each live process, from its /proc/<pid>/stat. */
function processTable(): { children: Map<number, number[]>; names: Map<number, string> } {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
      const nameEnd = text.lastIndexOf(')');
      const ppid = Number(text.slice(nameEnd + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      names.set(pid, text.slice(text.indexOf('(') + 1, nameEnd));
    } catch {
      // Gone meanwhile.
    }
  }
  return { children, names };
}

/** The first child of `parent` named `name` (a process's command name), if any. */
export function childNamed(parent: number, name: string): number | undefined {
  const { children, names } = processTable();
  return (children.get(parent) ?? []).find((pid) => names.get(pid) === name);
}

/** RSS, PSS and shared memory, in bytes, of each part's root process with all its descendants, each process counted once, in total and by part. */
export function treeMemory(roots: Record<string, number | undefined>): TreeMemory {
  const total: TreeMemory = { ...none(), parts: {} };
  if (!existsSync('/proc')) return total;
  const { children } = processTable();
  const seen = new Set<number>();
  for (const [name, root] of Object.entries(roots)) {
    if (root === undefined) continue;
    const part = (total.parts[name] ??= none());
    for (const queue = [root]; queue.length > 0; ) {
      const pid = queue.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const memory = memoryOf(pid);
      if (memory) {
        add(total, memory);
        add(part, memory);
      }
      queue.push(...(children.get(pid) ?? []));
    }
  }
  return total;
}

/** The tree's memory at its highest RSS (and the highest PSS) read every `everyMs` until stopped. */
export function watchTreeMemory(roots: () => Record<string, number | undefined>, everyMs = 500): { stop: () => TreeMemory } {
  let peak: TreeMemory = { ...none(), parts: {} };
  let peakPss = 0;
  const read = () => {
    const now = treeMemory(roots());
    if (now.rss > peak.rss) peak = now;
    peakPss = Math.max(peakPss, now.pss);
  };
  const timer = setInterval(read, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return { ...peak, pss: peakPss };
    },
  };
}
