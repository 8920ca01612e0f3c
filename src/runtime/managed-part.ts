import { spawnOwned, type OwnedProcessOptions } from './owned-process';
import { describeSystemError, StartupError } from './startup-error';

/** A part of Herald (Postgres, a Temporal server) running as a child process. */
export interface RunningPart {
  pid: number;
  /** Asks the part to stop, kills it after the grace period, and resolves once it exited. */
  stop(): Promise<void>;
}

export interface PartOptions extends OwnedProcessOptions {
  /** How messages name it, e.g. "embedded Postgres". */
  part: string;
  /** Resolves true once the part serves; polled until then. */
  ready(): Promise<boolean>;
  startTimeoutMs: number;
  stopSignal: NodeJS.Signals;
  stopGraceMs: number;
  /** What to do about a failure, read from the last lines of the part's log. */
  hint?(logTail: string): string | undefined;
  /** Told when the part exits while Herald still needs it. */
  onUnexpectedExit?(message: string): void;
  /** Told the part's pid as soon as it is spawned, before it is ready. */
  onSpawn?(pid: number): void;
}

/**
 * Starts a part and resolves once it is ready; a part that cannot be spawned, exits early or
 * is not ready in time fails with a StartupError naming it, with the last lines of its log.
 */
export async function startPart(options: PartOptions): Promise<RunningPart> {
  const { part } = options;
  const owned = spawnOwned(options);
  const { child } = owned;
  const log = () => ({ file: owned.logFile, tail: owned.logTail() });
  const failure = (cause: string) => {
    const { tail, file } = log();
    return new StartupError(part, cause, { hint: options.hint?.(tail), log: { file, tail } });
  };

  let state: 'starting' | 'running' | 'stopping' = 'starting';
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      spawnError = new StartupError(part, `could not be started (${options.command}): ${describeSystemError(error) ?? error.message}`);
      resolve();
    });
    child.once('exit', (code, signal) => {
      if (state === 'running') options.onUnexpectedExit?.(`${part} exited unexpectedly (${signal ?? `code ${code}`}); last lines of ${owned.logFile}:\n${owned.logTail()}`);
      resolve();
    });
  });
  const isRunning = () => child.exitCode === null && child.signalCode === null && !spawnError;
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  // The part must not outlive this process, even when it exits without stopping it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (!isRunning()) return;
    state = 'stopping';
    child.kill(options.stopSignal);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.stopGraceMs);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + options.startTimeoutMs;
  while (isRunning() && Date.now() < deadline) {
    if (await options.ready()) {
      state = 'running';
      return { pid: child.pid!, stop };
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 200))]);
  }
  if (spawnError) throw spawnError;
  if (!isRunning()) throw failure(`exited (${child.signalCode ?? `code ${child.exitCode}`}) before it was ready`);
  await stop();
  throw failure(`was not ready within ${options.startTimeoutMs / 1000} s`);
}
