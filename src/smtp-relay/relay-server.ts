import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import type { DataSource } from 'typeorm';
import { assertVerifiedSender } from '../domains/sender-check';
import { ApiError } from '../http/errors';
import { clientAddress } from '../http/client-address';
import { logger } from '../logger';
import { authenticate, FAILED_AUTH_PER_CONNECTION, LocalAuthFailures, plainAuthAllowed, projectOfKey, type RelayProject } from './relay-auth';
import { ByteBudget } from './relay-budget';
import * as limits from './relay-limits';
import { isSmtpReply, replyForSendError, smtpReply, tryLater, type SmtpReply } from './relay-replies';
import type { RelaySending } from './relay-sending';
import type { TlsMaterial } from './relay-tls';

/** The reply when Herald cannot handle a command right now (its database unreachable, say). */
const UNAVAILABLE = tryLater('Herald cannot take the message right now; try again shortly');

/** The reply to a message past the process's budget of bytes in flight. */
const BUSY = smtpReply(452, 'Herald is taking in too much mail right now; try again shortly');
/** The commands a clear-text connection from another address may not use: AUTH is neither offered nor taken before STARTTLS. */
const BEFORE_TLS = ['AUTH', 'XCLIENT', 'XFORWARD'];

/** What the relay's server is built from. */
export interface RelayServerOptions {
  dataSource: DataSource;
  sending: RelaySending;
  tls: TlsMaterial;
  /** SMTP_RELAY_ALLOW_INSECURE: AUTH without TLS from any address. */
  allowInsecure: boolean;
  /** Time and memory limits (relay-limits' constants unless set). */
  tuning?: Partial<limits.RelayTuning>;
  /** The process's budget of message bytes in flight (one of `tuning.bytesInFlight` unless given). */
  budget?: ByteBudget;
}

/** A session's commands as smtp-server reads them per connection (`session.disabledCommands`, documented in its README). */
type SessionCommands = SMTPServerSession & { disabledCommands?: string[] };

/** A connection the relay counts: its client address, whether it authenticated, and its deadlines. */
interface Tracked {
  address: string;
  authenticated: boolean;
  timers: NodeJS.Timeout[];
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

/** A message read: its bytes and those it holds of the budget, or the refusal it gets. */
type ReadMessage = { raw: Buffer; held: number } | { refusal: SmtpReply };

/**
 * Reads a message's bytes, each chunk taken from the process's budget before it is kept;
 * past the size limit or the budget, reads on without keeping anything and answers the refusal.
 */
async function readMessage(stream: Readable & { sizeExceeded?: boolean }, budget: ByteBudget): Promise<ReadMessage> {
  const tooLarge = () => smtpReply(552, `Message refused: larger than ${limits.MAX_MESSAGE_BYTES / 1024 / 1024} MB`);
  const chunks: Buffer[] = [];
  let bytes = 0;
  let held = 0;
  let refusal: SmtpReply | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (refusal) continue;
      if (bytes > limits.MAX_MESSAGE_BYTES) refusal = tooLarge();
      else if (!budget.take(chunk.length)) refusal = BUSY;
      else {
        chunks.push(chunk);
        held += chunk.length;
        continue;
      }
      chunks.length = 0;
      budget.release(held);
      held = 0;
    }
  } catch (err) {
    budget.release(held);
    throw err;
  }
  if (!refusal && stream.sizeExceeded) refusal = tooLarge();
  if (refusal) {
    budget.release(held);
    return { refusal };
  }
  return { raw: Buffer.concat(chunks, bytes), held };
}

/**
 * The SMTP submission server: STARTTLS, AUTH PLAIN or LOGIN as `herald` with a secret key
 * (in clear only over TLS, from loopback or when allowed: a clear-text connection from
 * another address is neither offered AUTH nor asked for a password), the sender's domain,
 * the key and the project's rate limit checked at MAIL FROM for each message, at most 50
 * recipients, messages of at most 40 MB within the process's budget of bytes in flight; each
 * message is then sent through the `/v1/send` path (RelaySending). A connection that has not
 * authenticated within the deadline, or has lasted the longest a session may, is closed.
 * Every refusal is an SMTP reply with its reason in words.
 */
export function createRelayServer(options: RelayServerOptions): SMTPServer {
  const { dataSource, sending, allowInsecure } = options;
  const tuning = limits.relayTuning(options.tuning);
  const budget = options.budget ?? new ByteBudget(tuning.bytesInFlight);
  const localFailures = new LocalAuthFailures();
  const failedAuths = new Map<string, number>();
  /** Connections counted per client address (a refused connection is closed without having been counted). */
  const tracked = new Map<string, Tracked>();
  const projectOf = (session: SMTPServerSession) => session.user as RelayProject;
  const fromAddress = (address: string, authenticated?: boolean) =>
    [...tracked.values()].filter((entry) => entry.address === address && (authenticated === undefined || entry.authenticated === authenticated)).length;

  /** Closes a connection with a 421 reply, unless it is gone already. */
  const drop = (sessionId: string, message: string) => {
    for (const connection of server.connections as Set<{ id: string; send(code: number, text: string): void; close(): void }>) {
      if (connection.id !== sessionId) continue;
      connection.send(421, message);
      connection.close();
    }
  };

  const server = new SMTPServer({
    name: 'herald',
    banner: 'Herald SMTP relay',
    key: options.tls.key,
    cert: options.tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // Whether AUTH may go in clear is decided per connection: onConnect disables it on a
    // clear-text connection from another address, and onAuth checks again.
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
      if (fromAddress(address) >= limits.MAX_CONNECTIONS_PER_ADDRESS) {
        return callback(smtpReply(421, `Too many connections from ${address}; at most ${limits.MAX_CONNECTIONS_PER_ADDRESS} at once`));
      }
      if (fromAddress(address, false) >= limits.MAX_UNAUTHENTICATED_PER_ADDRESS) {
        return callback(smtpReply(421, `Too many connections from ${address} that have not authenticated; at most ${limits.MAX_UNAUTHENTICATED_PER_ADDRESS} at once`));
      }
      if (!plainAuthAllowed(session, allowInsecure)) (session as SessionCommands).disabledCommands = BEFORE_TLS;
      const entry: Tracked = { address, authenticated: false, timers: [] };
      entry.timers.push(
        setTimeout(() => {
          if (!entry.authenticated) drop(session.id, `Authentication timeout: AUTH within ${tuning.authDeadlineMs / 1000} seconds of connecting`);
        }, tuning.authDeadlineMs).unref(),
        setTimeout(() => drop(session.id, `Session too long: at most ${tuning.sessionMs / 1000} seconds per connection; connect again`), tuning.sessionMs).unref(),
      );
      tracked.set(session.id, entry);
      callback();
    },

    onSecure(_socket, session, callback) {
      // Over TLS, AUTH is offered to every client.
      (session as SessionCommands).disabledCommands = undefined;
      callback();
    },

    onClose(session) {
      failedAuths.delete(session.id);
      const entry = tracked.get(session.id);
      entry?.timers.forEach((timer) => clearTimeout(timer));
      tracked.delete(session.id);
    },

    onAuth(auth: SMTPServerAuthentication, session, callback) {
      if (!plainAuthAllowed(session, allowInsecure)) {
        return callback(smtpReply(538, 'Encryption required: issue STARTTLS before AUTH (the password is the project\'s secret key)'));
      }
      settle(
        authenticate(dataSource, session.remoteAddress, auth.username ?? '', auth.password ?? '', localFailures).then((project) => {
          if (!(project instanceof Error)) {
            const entry = tracked.get(session.id);
            if (entry) entry.authenticated = true;
            return { user: project };
          }
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
          // AUTH disabled before STARTTLS also lifts smtp-server's own demand for it: asked here.
          if (!session.user) throw smtpReply(530, 'Authentication required: STARTTLS, then AUTH as "herald" with the project\'s secret key');
          const declared = address.args ? Number(address.args.SIZE) || 0 : 0;
          if (!budget.fits(Math.min(declared, limits.MAX_MESSAGE_BYTES))) throw BUSY;
          // The key is looked up again for each message: a rotated key or a disabled project stops the next one.
          const project = await projectOfKey(dataSource, projectOf(session).secretKey);
          if (project instanceof Error) throw project;
          session.user = project;
          // Counted here, before any of the message is read (RelaySending counts nothing more).
          await sending.admit(project);
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
          const read = await readMessage(stream, budget);
          if ('refusal' in read) throw read.refusal;
          try {
            return await sending.accept(projectOf(session), read.raw, session.envelope);
          } finally {
            budget.release(read.held);
          }
        })(),
        callback,
        UNAVAILABLE,
      );
    },
  });
  return server;
}
