import { createVerify } from 'node:crypto';
import { isSnsUrl, type SnsMessage } from './sns-message';

/** The fields SNS signs, in the order it signs them, per message type. */
const SIGNED_FIELDS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

/** SignatureVersion 1 is RSA over SHA-1, version 2 RSA over SHA-256. */
const ALGORITHMS: Record<string, string> = { '1': 'RSA-SHA1', '2': 'RSA-SHA256' };

const CERTIFICATE_TIMEOUT_MS = 5_000;
const CACHED_CERTIFICATES = 20;

/** The text SNS signed: each present signed field as "name\nvalue\n", in SNS's order. */
export function stringToSign(message: SnsMessage): string {
  return SIGNED_FIELDS[message.Type]
    .filter((field) => message[field] !== undefined)
    .map((field) => `${field}\n${message[field]}\n`)
    .join('');
}

/** Fetches the PEM signing certificate at an SNS URL. */
export type CertificateSource = (url: string) => Promise<string>;

/** Downloads a signing certificate over https, with a timeout and no redirects. */
export const downloadCertificate: CertificateSource = async (url) => {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(CERTIFICATE_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`SNS signing certificate ${url} answered ${response.status}`);
  const pem = await response.text();
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`SNS signing certificate ${url} is not a PEM certificate`);
  return pem;
};

/**
 * Checks Amazon SNS message signatures (the documented SNS scheme), trusting only
 * certificates served over https from an `sns.<region>.amazonaws.com` host.
 */
export class SnsSignatureVerifier {
  private readonly certificates = new Map<string, Promise<string>>();

  constructor(private readonly source: CertificateSource = downloadCertificate) {}

  /** Whether the message carries a valid SNS signature; a certificate that cannot be fetched throws. */
  async verify(message: SnsMessage): Promise<boolean> {
    const algorithm = ALGORITHMS[message.SignatureVersion ?? ''];
    const certUrl = message.SigningCertURL;
    if (!algorithm || !message.Signature || !certUrl || !isSnsUrl(certUrl) || !new URL(certUrl).pathname.endsWith('.pem')) {
      return false;
    }
    const certificate = await this.certificate(certUrl);
    try {
      return createVerify(algorithm).update(stringToSign(message), 'utf8').verify(certificate, message.Signature, 'base64');
    } catch {
      return false;
    }
  }

  /** The certificate at a URL, fetched once and kept (SNS rotates them rarely). */
  private certificate(url: string): Promise<string> {
    let pending = this.certificates.get(url);
    if (!pending) {
      if (this.certificates.size >= CACHED_CERTIFICATES) this.certificates.clear();
      pending = this.source(url);
      this.certificates.set(url, pending);
      pending.catch(() => this.certificates.delete(url));
    }
    return pending;
  }
}
