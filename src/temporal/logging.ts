import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
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
 * Sends the Temporal SDK's worker logs (bundler, worker state, workflow and activity
 * loggers) through Herald's JSON logger. Must run before the first worker connection.
 */
export function routeTemporalLogs(): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger('INFO', (entry) => {
      logger[LEVELS[entry.level]]({ temporal: entry.meta }, entry.message);
    }),
  });
}
