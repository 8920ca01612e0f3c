import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The Temporal CLI release that still builds with `go install` (later ones carry a `replace` directive). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export interface FindTemporalCliOptions {
  /** TEMPORAL_CLI_PATH from the configuration; used as it is when set. */
  configuredPath?: string;
  log?: (message: string) => void;
  /** Build the CLI with `go install` into the cache when nothing else is found. */
  install?: boolean;
}

/** Herald's cache directory for downloaded and built tools: `${XDG_CACHE_HOME or ~/.cache}/herald`. */
export function heraldCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'herald');
}

/** Where `go install` puts the Temporal CLI for Herald. */
export function cachedCliPath(): string {
  return path.join(heraldCacheDir(), 'bin', 'temporal');
}

/**
 * Finds the Temporal CLI: the configured path, else `temporal` on PATH, else the cached build,
 * else (with `install`) builds it with `go install`; undefined when none of these works.
 */
export async function findTemporalCli(options: FindTemporalCliOptions = {}): Promise<string | undefined> {
  if (options.configuredPath) {
    if (isExecutable(options.configuredPath)) return options.configuredPath;
    throw new Error(`TEMPORAL_CLI_PATH is not an executable file: ${options.configuredPath}`);
  }
  const found = onPath('temporal') ?? (isExecutable(cachedCliPath()) ? cachedCliPath() : undefined);
  if (found || !options.install) return found;
  const go = onPath('go');
  if (!go) return undefined;
  await goInstall(go, options.log);
  return isExecutable(cachedCliPath()) ? cachedCliPath() : undefined;
}

function goInstall(go: string, log?: (message: string) => void): Promise<void> {
  const bin = path.dirname(cachedCliPath());
  log?.(`Building the Temporal CLI (go install ${TEMPORAL_CLI_MODULE}) into ${bin}; this takes about 3 minutes once.`);
  return new Promise((resolve, reject) => {
    const child = spawn(go, ['install', TEMPORAL_CLI_MODULE], {
      env: { ...process.env, GOBIN: bin },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`go install ${TEMPORAL_CLI_MODULE} failed (code ${code}):\n${stderr.trim()}`));
    });
  });
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

if (require.main === module) {
  findTemporalCli({ install: true, log: (message) => console.error(message) }).then(
    (cli) => {
      if (!cli) {
        console.error('The Temporal CLI is not on PATH, not cached and cannot be built: Go is not installed.');
        process.exit(1);
      }
      console.log(cli);
    },
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
