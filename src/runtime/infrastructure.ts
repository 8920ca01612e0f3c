import path from 'node:path';
import type { DataSource } from 'typeorm';
import { embeddedPostgresPassword, type Config } from '../config';
import { openDatabase } from '../db/data-source';
import { embeddedUrl, startEmbeddedPostgres } from '../db/embedded';
import { logger } from '../logger';
import { HERALD_SEARCH_ATTRIBUTES } from '../orchestration/search-attributes';
import { findTemporalCli } from '../../temporal/cli';
import { startDevServer } from '../../temporal/dev-server';
import { findVisibilityIndexTool } from '../../temporal/visibility-indexes';
import { startTestServer } from '../../temporal/test-server';
import type { Shutdown } from './shutdown';

/** The database `npm start` creates on its embedded Postgres. */
const EMBEDDED_DATABASE = 'herald';

/** The configured Postgres (DATABASE_URL), else the embedded one that a running `npm start` serves from DATA_DIR. */
export function runningDatabaseUrl(config: Config): string {
  return config.databaseUrl ?? embeddedUrl(config.embeddedPostgresPort, embeddedPostgresPassword(config), EMBEDDED_DATABASE);
}

/** Opens the configured Postgres, or starts the embedded one under DATA_DIR; migrations are applied. */
export async function acquireDatabase(config: Config, shutdown: Shutdown): Promise<{ dataSource: DataSource; embedded: boolean }> {
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres({
      directory: path.join(config.dataDir, 'postgres'),
      port: config.embeddedPostgresPort,
      password: embeddedPostgresPassword(config),
      database: EMBEDDED_DATABASE,
      persistent: true,
      sharedBuffers: config.embeddedPostgresSharedBuffers,
      logFile: path.join(config.dataDir, 'logs', 'postgres.log'),
      log: (message) => logger.warn(message),
    });
    shutdown.add('embedded Postgres', embedded.stop);
    url = embedded.url;
  }
  const dataSource = await openDatabase(url);
  shutdown.add('database pool', () => dataSource.destroy());
  return { dataSource, embedded: !config.databaseUrl };
}

/** Where Temporal listens and, for the dev server, its UI. */
export interface TemporalEndpoint {
  address: string;
  uiUrl: string | undefined;
  kind: 'external' | 'dev-server' | 'test-server';
}

/**
 * Uses TEMPORAL_ADDRESS when set; otherwise starts the Temporal CLI dev server with its
 * SQLite under DATA_DIR, or, when no CLI can be had, the in-memory Java test server.
 */
export async function acquireTemporal(config: Config, shutdown: Shutdown): Promise<TemporalEndpoint> {
  if (config.temporalAddress) return { address: config.temporalAddress, uiUrl: undefined, kind: 'external' };
  const log = (message: string) => logger.info(message);
  const cliPath = await findTemporalCli({ configuredPath: config.temporalCliPath, log, install: true });
  if (cliPath) {
    const dev = await startDevServer({
      cliPath,
      dataDir: config.dataDir,
      port: config.temporalPort,
      uiPort: config.temporalUiPort,
      namespace: config.temporalNamespace,
      searchAttributes: HERALD_SEARCH_ATTRIBUTES,
      visibilityIndexTool: await findVisibilityIndexTool({ install: true, log }).catch((err: Error) => {
        logger.warn(`The Temporal dev server keeps all its visibility indexes: ${err.message}`);
        return undefined;
      }),
      log,
    });
    shutdown.add('Temporal dev server', dev.stop);
    return { address: dev.address, uiUrl: dev.uiUrl, kind: 'dev-server' };
  }
  logger.warn(
    'No Temporal CLI found (TEMPORAL_CLI_PATH, PATH, cache, go install): falling back to the in-memory ' +
      'Java test server. Workflows will not survive a restart and there is no Temporal UI.',
  );
  const testServer = await startTestServer(config.temporalPort);
  shutdown.add('Temporal test server', testServer.stop);
  return { address: `127.0.0.1:${testServer.port}`, uiUrl: undefined, kind: 'test-server' };
}
