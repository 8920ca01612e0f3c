import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { heraldCacheDir } from './tool-paths';
import { PACKAGE_ROOT } from '../src/runtime/module-form';
import { ensureFree } from '../src/runtime/tcp';
import { spawnServer } from './server-process';

/** This directory of the checkout: its scripts and pom.xml are not part of the build in dist/app. */
const TEMPORAL_DIR = path.join(PACKAGE_ROOT, 'temporal');
/** The wrapper that runs the Java test server on a port, or waits when one already listens there. */
export const testServerScript = path.join(TEMPORAL_DIR, 'test-server.sh');
const installScript = path.join(TEMPORAL_DIR, 'install-test-server.sh');

export interface TestServer {
  port: number;
  stop(): Promise<void>;
}

/** The io.temporal:temporal-test-server version pinned in temporal/pom.xml. */
export function testServerVersion(): string {
  const pom = readFileSync(path.join(TEMPORAL_DIR, 'pom.xml'), 'utf8');
  const version = /<temporal-test-server\.version>([^<]+)</.exec(pom)?.[1];
  if (!version) throw new Error('temporal/pom.xml does not pin temporal-test-server.version');
  return version;
}

/** Where install-test-server.sh puts the test server's jars (`lib/`) and class data archive (`server.jsa`). */
export function testServerHome(): string {
  return path.join(heraldCacheDir(), 'temporal-test-server', testServerVersion());
}

/** Runs install-test-server.sh unless the jars are already in place. */
export function ensureTestServerInstalled(log: (message: string) => void = console.error): void {
  if (existsSync(path.join(testServerHome(), 'lib', '.complete'))) return;
  const result = spawnSync('bash', [installScript], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${installScript} failed (${result.error?.message ?? `code ${result.status}`})`);
  log(result.stdout.trim());
}

/** Starts the Java time-skipping test server (in memory, no UI) on 127.0.0.1:<port>. */
export async function startTestServer(port: number, options: { log?: (message: string) => void } = {}): Promise<TestServer> {
  ensureTestServerInstalled(options.log);
  const address = `127.0.0.1:${port}`;
  await ensureFree('Temporal test server', address, 'TEMPORAL_PORT');
  const server = await spawnServer({
    name: 'Temporal test server',
    command: testServerScript,
    args: [String(port)],
    address,
    logFile: path.join(testServerHome(), 'test-server.log'),
    ready: (connection) => connection.workflowService.getSystemInfo({}),
    startTimeoutMs: 60_000,
    stopGraceMs: 5_000,
    log: options.log,
  });
  return { port, stop: server.stop };
}
