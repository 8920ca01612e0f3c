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
