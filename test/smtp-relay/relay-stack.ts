import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/** How a test connects: in clear (no STARTTLS), trusting another certificate, one kept connection, another username. */
export interface TransportOptions {
  plain?: boolean;
  ca?: string;
  pool?: boolean;
  user?: string;
}

/** A nodemailer transport to the relay with `password`, trusting the relay's certificate; STARTTLS is required unless `plain`. */
export function relayTransport(stack: RelayStack, password: string, options: TransportOptions = {}) {
  const transport: SMTPTransport.Options = {
    host: '127.0.0.1',
    port: stack.relay.port,
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
