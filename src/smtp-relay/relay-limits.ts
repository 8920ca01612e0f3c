/** The largest message the relay takes, as `/v1/send` takes bodies of up to 40 MB (CONTRACT 16). */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/** Recipients (RCPT TO) of one message: To, Cc and Bcc together (CONTRACT 16). */
export const MAX_MESSAGE_RECIPIENTS = 50;
/** Connections the relay holds at once; each may buffer one message of up to MAX_MESSAGE_BYTES. */
export const MAX_CONNECTIONS = 100;
/** Connections one client address may hold at once. */
export const MAX_CONNECTIONS_PER_ADDRESS = 20;
/** Idle time after which a connection is closed. */
export const SOCKET_TIMEOUT_MS = 60_000;
/** The longest command line (an AUTH PLAIN line with a 40-character key is far shorter). */
export const MAX_COMMAND_BYTES = 4096;
/** Time a connection has to authenticate before it is closed, however busy it keeps its socket. */
export const AUTH_DEADLINE_MS = 30_000;
/** The longest a connection may last, messages included. */
export const MAX_SESSION_MS = 10 * 60_000;
/**
 * Connections one client address may hold at once before they authenticate (fewer than
 * MAX_CONNECTIONS_PER_ADDRESS): an application may open a pool of 10 at once.
 */
export const MAX_UNAUTHENTICATED_PER_ADDRESS = 10;
/** Message bytes the process holds at once across every connection; past it new messages get 452. */
export const MAX_BYTES_IN_FLIGHT = 256 * 1024 * 1024;

/** The relay's time and memory limits, each one changeable when a relay is built (tests use small ones). */
export interface RelayTuning {
  authDeadlineMs: number;
  sessionMs: number;
  bytesInFlight: number;
}

/** The limits a relay runs with: the constants above unless told otherwise. */
export function relayTuning(overrides: Partial<RelayTuning> = {}): RelayTuning {
  return { authDeadlineMs: AUTH_DEADLINE_MS, sessionMs: MAX_SESSION_MS, bytesInFlight: MAX_BYTES_IN_FLIGHT, ...overrides };
}
