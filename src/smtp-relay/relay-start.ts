import type { AddressInfo } from 'node:net';
import { createServices, type AppDeps, type Services } from '../composition';
import type { Config } from '../config';
import { logger } from '../logger';
import { WindowLimiter } from '../rate-limits/window-limiter';
import { StartupError } from '../runtime/startup-error';
import { ByteBudget } from './relay-budget';
import { relayTuning, type RelayTuning } from './relay-limits';
import { createRelayServer } from './relay-server';
import { RelaySending } from './relay-sending';
import { tlsMaterial } from './relay-tls';

/** The port `npm start` and `npm run start:smtp` give the relay when SMTP_RELAY_PORT is unset. */
export const DEVELOPMENT_RELAY_PORT = 2587;

/** Socket errors of a client that went away. */
const CLIENT_HANGUPS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** A listening relay. */
export interface RunningRelay {
  port: number;
  /** Message bytes the relay holds in memory now. */
  bytesInFlight(): number;
  close(): Promise<void>;
}

/** The relay's port in a process: SMTP_RELAY_PORT, else `fallback` (none for start:api); undefined when off. */
export function relayPort(config: Config, fallback?: number): number | undefined {
  const { port } = config.smtpRelay;
  return port === 'off' ? undefined : port ?? fallback;
}

/** The process's core and, where the process runs the API too, the app's services, which the relay then sends through. */
export type RelayDeps = AppDeps & { services?: Pick<Services, 'send'> };

/**
 * Starts the SMTP relay on a port (0: any free one) beside whatever else the process runs,
 * sending through the API's services (built once here when the process has no app), within
 * relay-limits' time and memory limits (`overrides`: others). A port in use stops start-up with one line.
 */
export async function startSmtpRelay(deps: RelayDeps, port: number, overrides: Partial<RelayTuning> = {}): Promise<RunningRelay> {
  const { config, dataSource } = deps;
  const tuning = relayTuning(overrides);
  const budget = new ByteBudget(tuning.bytesInFlight);
  const { send } = deps.services ?? createServices(deps);
  const sending = new RelaySending(dataSource, send, new WindowLimiter(dataSource, config.rateLimitPerMinute), config.idempotencyTtlHours);
  const server = createRelayServer({ dataSource, sending, tls: await tlsMaterial(config.smtpRelay, config.dataDir), allowInsecure: config.smtpRelay.allowInsecure, tuning, budget });
  await new Promise<void>((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) => {
      const cause = err.code === 'EADDRINUSE' ? `port ${port} is already in use` : err.code === 'EACCES' ? `no permission to listen on port ${port}` : err.message;
      reject(new StartupError('SMTP relay', `${cause}; set SMTP_RELAY_PORT to a free port, or to off`));
    };
    server.once('error', refused);
    server.listen(port, config.smtpRelay.host, () => {
      server.off('error', refused);
      // A client that hangs up is routine; anything else is worth a warning.
      server.on('error', (err: NodeJS.ErrnoException) => logger[CLIENT_HANGUPS.has(err.code ?? '') ? 'debug' : 'warn']({ err }, 'SMTP relay: connection error'));
      resolve();
    });
  });
  const listening = (server.server.address() as AddressInfo).port;
  logger.info(`Herald SMTP relay listening on port ${listening}`);
  return { port: listening, bytesInFlight: () => budget.inFlight, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
