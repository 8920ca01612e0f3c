/**
 * The resident memory of the campaign bench's process tree, read from /proc (Linux): the bench's
 * own process (the API, and the local SES server standing in for AWS) with every descendant
 * (the worker, the Temporal dev server), and the Postgres server's tree. RSS counts pages shared
 * between processes (Postgres's shared buffers) once per process; PSS shares them out.
 * Elsewhere every reading is 0.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Bytes of one process's memory as /proc/<pid>/smaps_rollup reports them; undefined when it is gone. */
function memoryOf(pid: number): { rss: number; pss: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return { rss: kb('Rss'), pss: kb('Pss') };
  } catch {
    return undefined;
  }
}

/** The parent of each live process. */
function parents(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** RSS and PSS, in bytes, of the given processes and all their descendants, each counted once. */
export function treeMemory(roots: (number | undefined)[]): { rss: number; pss: number } {
  const total = { rss: 0, pss: 0 };
  if (!existsSync('/proc')) return total;
  const children = parents();
  const seen = new Set<number>();
  for (const queue = roots.filter((pid): pid is number => pid !== undefined); queue.length > 0; ) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const memory = memoryOf(pid);
    if (memory) [total.rss, total.pss] = [total.rss + memory.rss, total.pss + memory.pss];
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** The highest tree RSS and PSS read every `everyMs` until stopped. */
export function watchTreeMemory(roots: () => (number | undefined)[], everyMs = 500): { stop: () => { rss: number; pss: number } } {
  const peak = { rss: 0, pss: 0 };
  const read = () => {
    const now = treeMemory(roots());
    [peak.rss, peak.pss] = [Math.max(peak.rss, now.rss), Math.max(peak.pss, now.pss)];
  };
  const timer = setInterval(read, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}
