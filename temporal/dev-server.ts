import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { spawnServer } from './server-process';

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Bool' | 'Datetime' | 'Double' | 'KeywordList';

export interface DevServerOptions {
  cliPath: string;
  /** Holds `temporal.sqlite`, so workflows survive restarts. */
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  searchAttributes?: Record<string, SearchAttributeType>;
  log?: (message: string) => void;
}

export interface DevServer {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev` on loopback with persistent SQLite and resolves once it serves the namespace. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  mkdirSync(options.dataDir, { recursive: true });
  const address = `127.0.0.1:${options.port}`;
  const args = [
    'server',
    'start-dev',
    '--db-filename', path.join(options.dataDir, 'temporal.sqlite'),
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--ui-port', String(options.uiPort),
    '--namespace', options.namespace,
    '--log-level', 'warn',
  ];
  for (const [name, type] of Object.entries(options.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  const server = await spawnServer({
    name: 'Temporal dev server',
    command: options.cliPath,
    args,
    address,
    ready: (connection) => connection.workflowService.describeNamespace({ namespace: options.namespace }),
    startTimeoutMs: 60_000,
    stopGraceMs: 10_000,
    log: options.log,
  });
  return { address, uiUrl: `http://127.0.0.1:${options.uiPort}`, stop: server.stop };
}
