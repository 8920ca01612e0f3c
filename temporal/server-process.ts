import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { Connection } from '@temporalio/client';

/** A Temporal server running as a child process of this one. */
export interface ServerProcess {
  /** Sends SIGTERM, waits for the exit and sends SIGKILL after `stopGraceMs`. */
  stop(): Promise<void>;
}

export interface SpawnServerOptions {
  /** How messages name the server, e.g. "Temporal dev server". */
  name: string;
  command: string;
  args: string[];
  /** host:port of the server's gRPC frontend. */
  address: string;
  /** Called with a fresh connection until it resolves; the server counts as ready then. */
  ready(connection: Connection): Promise<unknown>;
  startTimeoutMs: number;
  stopGraceMs: number;
  log?: (message: string) => void;
}

const OUTPUT_LINES_KEPT = 20;

/** Spawns a server process and resolves once it answers gRPC; fails with its last output lines otherwise. */
export async function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  const { name, address } = options;
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter((line) => line.trim() !== ''));
    output.splice(0, Math.max(0, output.length - OUTPUT_LINES_KEPT));
  };
  const lastOutput = () => (output.length ? `; last output:\n  ${output.join('\n  ')}` : '');

  const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let state: 'starting' | 'running' | 'stopping' = 'starting';
  let failure: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      failure = new Error(`${name} could not be started (${options.command}): ${error.message}`);
      resolve();
    });
    child.once('exit', (code, signal) => {
      failure ??= new Error(`${name} exited (${signal ?? `code ${code}`}) before it accepted connections on ${address}`);
      if (state === 'running') options.log?.(`${name} exited unexpectedly (${signal ?? `code ${code}`})${lastOutput()}`);
      resolve();
    });
  });
  const isRunning = () => child.exitCode === null && child.signalCode === null && !failure;
  // A server must not outlive the process that started it, even when that one exits without stopping it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (!isRunning()) return;
    state = 'stopping';
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), options.stopGraceMs);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + options.startTimeoutMs;
  while (isRunning() && Date.now() < deadline) {
    if ((await accepts(address)) && (await answers(options))) {
      state = 'running';
      return { stop };
    }
    await Promise.race([exited, delay(200)]);
  }
  const reason = isRunning()
    ? new Error(`${name} did not accept gRPC connections on ${address} within ${options.startTimeoutMs / 1000} s`)
    : failure!;
  await stop();
  reason.message += lastOutput();
  throw reason;
}

/** Whether something accepts TCP connections on host:port. */
export function accepts(address: string): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
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

function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  return [address.slice(0, colon), Number(address.slice(colon + 1))];
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
