import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/** A part Herald runs as a child process, whose output goes to a log file of its own. */
export interface OwnedProcess {
  child: ChildProcess;
  logFile: string;
  /** The last lines this run of the part wrote to its log. */
  logTail(lines?: number): string;
}

export interface OwnedProcessOptions {
  command: string;
  args: string[];
  /** Appended to; the part writes to it directly, so it keeps logging if Herald dies. */
  logFile: string;
  /** Sent to the part when the process that started it dies, where the platform allows. */
  deathSignal: NodeJS.Signals;
  uid?: number;
  gid?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

let setprivChecked: string | null | undefined;

/** util-linux `setpriv` when it can set a parent-death signal (Linux), else null. */
function setpriv(): string | null {
  if (setprivChecked === undefined) {
    const probe = spawnSync('setpriv', ['--pdeathsig', 'TERM', '--', 'true'], { stdio: 'ignore' });
    setprivChecked = probe.status === 0 ? 'setpriv' : null;
  }
  return setprivChecked;
}

/**
 * Starts a part of Herald with its output in `logFile`. On Linux it runs under
 * `setpriv --pdeathsig`, so that it is told to stop when Herald dies, even by SIGKILL;
 * elsewhere a part left behind is found and stopped by the next start.
 */
export function spawnOwned(options: OwnedProcessOptions): OwnedProcess {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  // Appended to, never through a link planted in its place.
  const fd = openSync(options.logFile, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  writeSync(fd, `\n--- ${new Date().toISOString()} ${options.command} ${options.args.join(' ')}\n`);
  const from = statSync(options.logFile).size;
  const wrapper = setpriv();
  const [command, args] = wrapper
    ? [wrapper, ['--pdeathsig', options.deathSignal.replace(/^SIG/, ''), '--', options.command, ...options.args]]
    : [options.command, options.args];
  try {
    const child = spawn(command, args, {
      stdio: ['ignore', fd, fd],
      // A process group of its own: Ctrl-C in a terminal reaches Herald, which stops the part after its worker drained.
      detached: true,
      uid: options.uid,
      gid: options.gid,
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    return { child, logFile: options.logFile, logTail: (lines = 15) => readTail(options.logFile, from, lines) };
  } finally {
    closeSync(fd);
  }
}

const TAIL_BYTES = 16 * 1024;

/** The last `lines` non-empty lines written to a file after byte `from`. */
export function readTail(file: string, from: number, lines: number): string {
  try {
    const size = statSync(file).size;
    const start = Math.max(from, size - TAIL_BYTES);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, start);
    } finally {
      closeSync(fd);
    }
    return buffer.toString('utf8').split('\n').filter((line) => line.trim() !== '').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
