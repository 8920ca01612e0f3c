import { DefaultLogger, IllegalStateError, Runtime, type LogLevel } from '@temporalio/worker';
import { logger } from '../logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

let installed = false;

/**
 * Sends the Temporal SDK's logs (bundler, worker state, workflow and activity loggers,
 * and the native core's warnings) through Herald's JSON logger, so LOG_LEVEL governs them.
 * Must run before the first worker connection of the process; later calls do nothing.
 */
export function routeTemporalLogs(): void {
  if (installed) return;
  installed = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', (entry) => {
        logger[LEVELS[entry.level]]({ temporal: entry.meta }, entry.message);
      }),
      telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} } },
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}
