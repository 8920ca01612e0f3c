import { Connection } from '@temporalio/client';
import { startPart, type RunningPart } from '../src/runtime/managed-part';

export interface SpawnServerOptions {
  /** How messages name the server, e.g. "Temporal dev server". */
  name: string;
  command: string;
  args: string[];
  /** host:port of the server's gRPC frontend. */
  address: string;
  /** Where the server's output goes. */
  logFile: string;
  /** Called with a fresh connection until it resolves; the server counts as ready then. */
  ready(connection: Connection): Promise<unknown>;
  startTimeoutMs: number;
  stopGraceMs: number;
  log?: (message: string) => void;
  /** Told the server's pid as soon as it is spawned. */
  onSpawn?: (pid: number) => void;
}

/** Starts a Temporal server as a part of Herald and resolves once it answers gRPC; SIGTERM stops it. */
export function spawnServer(options: SpawnServerOptions): Promise<RunningPart> {
  return startPart({
    part: options.name,
    command: options.command,
    args: options.args,
    logFile: options.logFile,
    deathSignal: 'SIGTERM',
    stopSignal: 'SIGTERM',
    stopGraceMs: options.stopGraceMs,
    startTimeoutMs: options.startTimeoutMs,
    ready: () => answers(options),
    onUnexpectedExit: options.log,
    onSpawn: options.onSpawn,
  });
}

async function answers(options: SpawnServerOptions): Promise<boolean> {
  // A lazy connection is closed even when connecting fails; Connection.connect would leak its channel then.
  const connection = Connection.lazy({ address: options.address, connectTimeout: 2000 });
  try {
    await connection.withDeadline(Date.now() + 2000, async () => {
      await connection.ensureConnected();
      await options.ready(connection);
    });
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}
