import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import type { DataSource } from 'typeorm';
import { assertVerifiedSender } from '../domains/sender-check';
import { ApiError } from '../http/errors';
import { clientAddress } from '../http/client-address';
import { logger } from '../logger';
import { authenticate, FAILED_AUTH_PER_CONNECTION, plainAuthAllowed, projectOfKey, type RelayProject } from './relay-auth';
import * as limits from './relay-limits';
import { isSmtpReply, replyForSendError, smtpReply, tryLater, type SmtpReply } from './relay-replies';
import type { RelaySending } from './relay-sending';
import type { TlsMaterial } from './relay-tls';

/** The reply when Herald cannot handle a command right now (its database unreachable, say). */
const UNAVAILABLE = tryLater('Herald cannot take the message right now; try again shortly');

/** What the relay's server is built from. */
export interface RelayServerOptions {
  dataSource: DataSource;
  sending: RelaySending;
  tls: TlsMaterial;
  /** SMTP_RELAY_ALLOW_INSECURE: AUTH without TLS from any address. */
  allowInsecure: boolean;
}

/**
 * Calls an smtp-server callback with what a promise settles to. A thrown SMTP reply is passed
 * on as the refusal; any other error (the database unreachable) is logged and answered with
 * `unavailable`, a temporary reply that says nothing of the cause.
 */
function settle<T>(work: Promise<T>, callback: (err: Error | null, value?: T) => void, unavailable: SmtpReply): void {
  work.then(
    (value) => callback(null, value),
    (err: Error) => {
      if (isSmtpReply(err)) return callback(err);
      logger.error({ err }, 'SMTP relay: a command could not be handled');
      callback(unavailable);
    },
  );
}

/** Reads a message's bytes up to the limit; past it, reads on without keeping them and answers undefined. */
async function readMessage(stream: Readable & { sizeExceeded?: boolean }): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes <= limits.MAX_MESSAGE_BYTES) chunks.push(chunk);
  }
  return bytes > limits.MAX_MESSAGE_BYTES || stream.sizeExceeded ? undefined : Buffer.concat(chunks, bytes);
}

/**
 * The SMTP submission server: STARTTLS, AUTH PLAIN or LOGIN as `herald` with a secret key
 * (in clear only over TLS, from loopback or when allowed), the sender's domain checked at
 * MAIL FROM and the key checked again for each message, at most 50 recipients, messages of at
 * most 40 MB; each message is then sent through the `/v1/send` path (RelaySending). Every
 * refusal is an SMTP reply with its reason in words.
 */
export function createRelayServer(options: RelayServerOptions): SMTPServer {
  const { dataSource, sending, allowInsecure } = options;
  const failedAuths = new Map<string, number>();
  const perAddress = new Map<string, number>();
  /** Sessions counted in perAddress (a refused connection is closed without having been counted). */
  const counted = new Set<string>();
  const projectOf = (session: SMTPServerSession) => session.user as RelayProject;

  const server = new SMTPServer({
    name: 'herald',
    banner: 'Herald SMTP relay',
    key: options.tls.key,
    cert: options.tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // Whether AUTH may go in clear is decided per connection in onAuth (plainAuthAllowed).
    allowInsecureAuth: true,
    authRequiredMessage: 'Authentication required: AUTH as "herald" with the project\'s secret key',
    size: limits.MAX_MESSAGE_BYTES,
    rejectOversized: true,
    maxRecipients: limits.MAX_MESSAGE_RECIPIENTS,
    maxClients: limits.MAX_CONNECTIONS,
    maxCommandLength: limits.MAX_COMMAND_BYTES,
    socketTimeout: limits.SOCKET_TIMEOUT_MS,
    closeTimeout: 10_000,
    disableReverseLookup: true,
    disabledCommands: ['XCLIENT', 'XFORWARD'],
    logger: false,

    onConnect(session, callback) {
      const address = clientAddress(session.remoteAddress);
      const open = (perAddress.get(address) ?? 0) + 1;
      if (open > limits.MAX_CONNECTIONS_PER_ADDRESS) {
        return callback(smtpReply(421, `Too many connections from ${address}; at most ${limits.MAX_CONNECTIONS_PER_ADDRESS} at once`));
      }
      perAddress.set(address, open);
      counted.add(session.id);
      callback();
    },

    onClose(session) {
      failedAuths.delete(session.id);
      if (!counted.delete(session.id)) return;
      const address = clientAddress(session.remoteAddress);
      const open = (perAddress.get(address) ?? 1) - 1;
      if (open > 0) perAddress.set(address, open);
      else perAddress.delete(address);
    },

    onAuth(auth: SMTPServerAuthentication, session, callback) {
      if (!plainAuthAllowed(session, allowInsecure)) {
        return callback(smtpReply(538, 'Encryption required: issue STARTTLS before AUTH (the password is the project\'s secret key)'));
      }
      settle(
        authenticate(dataSource, session.remoteAddress, auth.username ?? '', auth.password ?? '').then((project) => {
          if (!(project instanceof Error)) return { user: project };
          const failures = (failedAuths.get(session.id) ?? 0) + 1;
          failedAuths.set(session.id, failures);
          // 421 closes the connection.
          if (failures >= FAILED_AUTH_PER_CONNECTION) throw smtpReply(421, `${project.message}; closing after ${failures} failed attempts`);
          throw project;
        }),
        callback,
        smtpReply(454, 'Authentication is unavailable right now; try again shortly'),
      );
    },

    onMailFrom(address, session, callback) {
      settle(
        (async () => {
          // The key is looked up again for each message: a rotated key or a disabled project stops the next one.
          const project = await projectOfKey(dataSource, projectOf(session).secretKey);
          if (project instanceof Error) throw project;
          session.user = project;
          if (!address.address) return;
          try {
            await assertVerifiedSender(dataSource.manager, project.id, address.address);
          } catch (err) {
            throw err instanceof ApiError ? replyForSendError(err) : err;
          }
        })(),
        callback,
        UNAVAILABLE,
      );
    },

    onData(stream, session, callback) {
      settle(
        (async () => {
          const raw = await readMessage(stream);
          if (!raw) throw smtpReply(552, `Message refused: larger than ${limits.MAX_MESSAGE_BYTES / 1024 / 1024} MB`);
          return sending.accept(projectOf(session), raw, session.envelope);
        })(),
        callback,
        UNAVAILABLE,
      );
    },
  });
  return server;
}
