import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';
import type { SmtpRelayConfig } from '../config';
import { linkedInto, stageBeside } from '../runtime/staged-file';
import { StartupError } from '../runtime/startup-error';

/** The certificate and private key STARTTLS presents, in PEM. */
export interface TlsMaterial {
  cert: string;
  key: string;
}

/** The generated pair's file under DATA_DIR: key and certificate in one PEM file (mode 0600), so they never mismatch. */
export const generatedTlsFile = (dataDir: string) => path.join(dataDir, 'smtp-relay-tls.pem');

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const KEY_BLOCK = /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC )?PRIVATE KEY-----/;

/** Splits a PEM file holding a private key and a certificate; undefined when either is missing. */
function splitPem(pem: string): TlsMaterial | undefined {
  const cert = CERT_BLOCK.exec(pem)?.[0];
  const key = KEY_BLOCK.exec(pem)?.[0];
  return cert && key ? { cert: `${cert}\n`, key: `${key}\n` } : undefined;
}

/** Reads one configured PEM file, or stops start-up with a line naming it. */
function readPem(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new StartupError('SMTP relay', `cannot read ${variable} (${file}): ${(err as Error).message}`);
  }
}

/**
 * A self-signed pair for `localhost` kept under DATA_DIR: made on the first start (valid ten
 * years), reused after. Written whole beside its place and linked in, so two processes
 * starting at once end up with the same pair.
 */
async function generatedPair(dataDir: string): Promise<TlsMaterial> {
  const file = generatedTlsFile(dataDir);
  const existing = existsSync(file) ? splitPem(readFileSync(file, 'utf8')) : undefined;
  if (existing) return existing;
  const notAfterDate = new Date();
  notAfterDate.setFullYear(notAfterDate.getFullYear() + 10);
  const pair = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] }],
  });
  const staged = stageBeside(file, `${pair.private}\n${pair.cert}\n`, 0o600);
  try {
    if (existsSync(file)) renameSync(staged, file);
    else if (!linkedInto(staged, file)) return generatedPair(dataDir);
  } finally {
    rmSync(staged, { force: true });
  }
  return splitPem(readFileSync(file, 'utf8'))!;
}

/** The configured certificate and key (SMTP_RELAY_TLS_CERT/KEY), or the self-signed pair under DATA_DIR. */
export async function tlsMaterial(relay: SmtpRelayConfig, dataDir: string): Promise<TlsMaterial> {
  if (!relay.tls) return generatedPair(dataDir);
  return { cert: readPem(relay.tls.certFile, 'SMTP_RELAY_TLS_CERT'), key: readPem(relay.tls.keyFile, 'SMTP_RELAY_TLS_KEY') };
}
