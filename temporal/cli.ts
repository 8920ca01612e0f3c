import path from 'node:path';
import { heraldCacheDir, isExecutable, onPath, runTool } from './tool-paths';
import { findVisibilityIndexTool } from './visibility-indexes';

/** The Temporal CLI release that still builds with `go install` (later ones carry a `replace` directive). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export interface FindTemporalCliOptions {
  /** TEMPORAL_CLI_PATH from the configuration; used as it is when set. */
  configuredPath?: string;
  log?: (message: string) => void;
  /** Build the CLI with `go install` into the cache when nothing else is found. */
  install?: boolean;
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

async function goInstall(go: string, log?: (message: string) => void): Promise<void> {
  const bin = path.dirname(cachedCliPath());
  log?.(`Building the Temporal CLI (go install ${TEMPORAL_CLI_MODULE}) into ${bin}; this takes about 3 minutes once.`);
  await runTool(`go install ${TEMPORAL_CLI_MODULE}`, go, ['install', TEMPORAL_CLI_MODULE], { env: { ...process.env, GOBIN: bin } });
}

if (require.main === module) {
  const log = (message: string) => console.error(message);
  findTemporalCli({ install: true, log }).then(
    async (cli) => {
      if (!cli) {
        console.error('The Temporal CLI is not on PATH, not cached and cannot be built: Go is not installed.');
        process.exit(1);
      }
      console.log(cli);
      // Beside it, the program that trims the dev server's visibility indexes (temporal/visibility-indexes.ts); the server runs without it too.
      const indexes = await findVisibilityIndexTool({ install: true, log }).catch((error: Error) => log(error.message));
      if (indexes) console.log(indexes);
    },
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
