import type { Transport } from '../config';

/** A file carried by an outgoing message. */
export interface OutgoingAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** The Content-ID the HTML shows it by (`cid:`): an inline image, sent in the HTML's multipart/related part. */
  cid?: string;
}

/** One fully rendered email, ready for a transport. */
export interface OutgoingMessage {
  /** RFC 5322 address, optionally with a display name: `Herald <no-reply@example.com>`. */
  from: string;
  to: string[];
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
  attachments?: OutgoingAttachment[];
  /** SES configuration set; overrides the configured one. Other transports ignore it. */
  configurationSet?: string;
  /** SES message tags; `projectId` names the sending project. The outbox keeps that one; SMTP ignores them. */
  tags?: Record<string, string>;
}

/** What a transport answers for an accepted message. */
export interface SentMessage {
  /** The transport's id for the message (SES MessageId, SMTP Message-ID, outbox id). */
  messageId: string;
}

/** Delivers messages through one transport; the sending engine sees only this. */
export interface Mailer {
  readonly transport: Transport;
  send(message: OutgoingMessage): Promise<SentMessage>;
  close?(): Promise<void>;
}

/** Why delivery failed: the transport's error name or SMTP reply code, when it gave one. */
interface MailErrorOptions {
  code?: string;
  cause?: unknown;
}

/** A delivery failure. */
export abstract class MailError extends Error {
  readonly code: string | undefined;

  constructor(message: string, options: MailErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
  }
}

/** Sending the same message again would fail the same way (rejected recipient or content). */
export class PermanentMailError extends MailError {}

/** Sending the same message later may succeed (throttling, server error, network). */
export class TransientMailError extends MailError {}
