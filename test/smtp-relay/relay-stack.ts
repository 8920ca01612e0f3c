import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { composeCore } from '../../src/composition';
import { generatedTlsFile } from '../../src/smtp-relay/relay-tls';
import { startSmtpRelay, type RunningRelay } from '../../src/smtp-relay/relay-start';
import { startSesStack, type SesStack } from '../support/stack';

/** A test SES stack with the SMTP relay listening on a free loopback port, and the certificate it generated under DATA_DIR. */
export interface RelayStack extends SesStack {
  relay: RunningRelay;
  certificate: string;
}

/** Starts the SES stack with `env`, and the relay beside its API on the same configuration (DATA_DIR a fresh directory). */
export async function startRelayStack(env: Record<string, string>): Promise<RelayStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-smtp-relay-'));
  const stack = await startSesStack({ DATA_DIR: dataDir, SMTP_RELAY_HOST: '127.0.0.1', ...env });
  const relay = await startSmtpRelay(composeCore(stack.api.config, stack.api.dataSource, stack.temporal.client), 0);
  return {
    ...stack,
    relay,
    certificate: readFileSync(generatedTlsFile(dataDir), 'utf8'),
    close: async () => {
      await relay.close();
      await stack.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** How a test connects: in clear (no STARTTLS), trusting another certificate, one kept connection, another username, from and to other local addresses. */
export interface TransportOptions {
  plain?: boolean;
  ca?: string;
  pool?: boolean;
  user?: string;
  host?: string;
  localAddress?: string;
}

/** A nodemailer transport to the relay with `password`, trusting the relay's certificate; STARTTLS is required unless `plain`. */
export function relayTransport(stack: RelayStack, password: string, options: TransportOptions = {}) {
  const transport: SMTPTransport.Options = {
    host: options.host ?? '127.0.0.1',
    port: stack.relay.port,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    secure: false,
    auth: { user: options.user ?? 'herald', pass: password },
    ...(options.plain ? { ignoreTLS: true } : { requireTLS: true, tls: { ca: options.ca ?? stack.certificate, servername: 'localhost' } }),
  };
  return options.pool ? nodemailer.createTransport({ ...transport, pool: true, maxConnections: 1 }) : nodemailer.createTransport(transport);
}

/** The SMTP reply code of a refused send (nodemailer's `responseCode`), or 250 when it was accepted. */
export async function replyCode(send: Promise<unknown>): Promise<number> {
  try {
    await send;
    return 250;
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    if (code === undefined) throw err;
    return code;
  }
}

/** An SMTP conversation over a bare socket, for what a client library would not do (trickle bytes, stop mid-message). */
export interface RawSmtp {
  /** The next whole reply (every line of a multi-line one); what is left once the server closed. */
  reply(): Promise<string>;
  /** Writes a command line and answers its reply. */
  say(line: string): Promise<string>;
  write(data: string | Buffer): void;
  /** Settles once the server closed the connection. */
  closed: Promise<void>;
  close(): void;
}

/** Opens a bare SMTP connection to `port` (from `localAddress` if given). */
export function rawSmtp(port: number, host = '127.0.0.1', localAddress?: string): RawSmtp {
  const socket = connect({ port, host, ...(localAddress ? { localAddress } : {}) });
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  let buffer = '';
  let ended = false;
  let wake: (() => void) | undefined;
  socket.on('data', (data: string) => {
    buffer += data;
    wake?.();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      wake?.();
      resolve();
    }),
  );
  const reply = async (): Promise<string> => {
    for (;;) {
      const last = /^\d{3} [^\r\n]*\r\n/m.exec(buffer);
      if (last || ended) {
        const text = last ? buffer.slice(0, last.index + last[0].length) : buffer;
        buffer = buffer.slice(text.length);
        return text;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const write = (data: string | Buffer) => {
    if (!socket.destroyed) socket.write(data);
  };
  return {
    reply,
    say: (line) => (write(`${line}\r\n`), reply()),
    write,
    closed,
    close: () => socket.destroy(),
  };
}

/** Opens a bare connection and authenticates it in clear (loopback) as herald with `key`; answers it with the AUTH reply. */
export async function rawAuthenticated(port: number, key: string): Promise<{ smtp: RawSmtp; greeting: string; auth: string }> {
  const smtp = rawSmtp(port);
  const greeting = await smtp.reply();
  if (!greeting.startsWith('220 ')) return { smtp, greeting, auth: '' };
  await smtp.say('EHLO test.example');
  const auth = await smtp.say(`AUTH PLAIN ${Buffer.from(`\0herald\0${key}`).toString('base64')}`);
  return { smtp, greeting, auth };
}
