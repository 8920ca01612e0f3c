import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { allProcesses, processParent, processState } from '../../src/runtime/process-table';
import { freePort } from './ports';
import { npmScriptNodeArgs } from './npm-scripts';

const ROOT = path.resolve(__dirname, '../..');
const START_TIMEOUT_MS = 120_000;

/** The ports one Herald uses; kept across its restarts, as an operator's configuration would be. */
export interface HeraldPorts {
  PORT: string;
  EMBEDDED_POSTGRES_PORT: string;
  TEMPORAL_PORT: string;
  TEMPORAL_UI_PORT: string;
  SMTP_RELAY_PORT: string;
}

/** Free ports for one Herald. */
export async function heraldPorts(): Promise<HeraldPorts> {
  return {
    PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    SMTP_RELAY_PORT: String(await freePort()),
  };
}

/** Deletes a DATA_DIR and, where Herald (as root) placed its cluster elsewhere, that cluster too. */
export function removeDataDir(dataDir: string): void {
  const cluster = path.join(dataDir, 'postgres');
  try {
    if (lstatSync(cluster).isSymbolicLink()) rmSync(realpathSync(cluster), { recursive: true, force: true });
  } catch {
    // No cluster.
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/** The URL of the embedded database of the Herald running on `dataDir` (its password is in `secrets.json`). */
export function heraldDatabaseUrl(dataDir: string, port: string): string {
  const { postgresPassword } = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
  return `postgres://herald:${encodeURIComponent(postgresPassword)}@127.0.0.1:${port}/herald`;
}

/** A connection to the embedded database of the Herald running on `dataDir`. */
export async function heraldDatabase(dataDir: string, port: string): Promise<PgClient> {
  const client = new PgClient({ connectionString: heraldDatabaseUrl(dataDir, port) });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The pids of every live descendant of `pid` (Linux). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const child of allProcesses()) {
    const parent = processParent(child);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found.filter((child) => processState(child) === 'running');
}

/** Herald as `npm start` runs it (`npm start`'s command line), in a process of its own. */
export class HeraldProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /** Starts Herald with `env` (and `nodeArgs` before its own) and resolves once it printed its banner; fails with its output if it exits first. */
  static async start(env: Record<string, string>, logFile: string, nodeArgs: string[] = []): Promise<HeraldProcess> {
    const fd = openSync(logFile, 'a');
    const child = spawn(process.execPath, [...nodeArgs, ...npmScriptNodeArgs('start')], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const herald = new HeraldProcess(child, logFile);
    const from = herald.output().length;
    const deadline = Date.now() + START_TIMEOUT_MS;
    // The banner's own line: "another Herald is running on ..." is a failure.
    while (!/^Herald is running$/m.test(herald.output().slice(from))) {
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        throw new Error(`Herald did not start (${child.exitCode ?? child.signalCode ?? 'timed out'}):\n${herald.output().slice(from).slice(-3000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return herald;
  }

  /** Everything Herald printed so far, over all its runs into this log. */
  output(): string {
    return readFileSync(this.logFile, 'utf8');
  }

  /** SIGKILLs Herald's own process only, as the OOM killer would; answers the pids of the parts it had started. */
  async killMain(): Promise<number[]> {
    const parts = descendants(this.pid);
    this.child.kill('SIGKILL');
    await this.exited();
    return parts;
  }

  /** SIGKILLs Herald and every process it started, all at once. */
  async killAll(): Promise<void> {
    for (const pid of [this.pid, ...descendants(this.pid)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await this.exited();
  }

  /** Stops Herald as Ctrl-C does. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGINT');
    await this.exited();
  }

  private exited(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }
}
