import nodemailer, { type Transporter } from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import { toMailOptions } from './mime';
import {
  type MailError,
  type Mailer,
  type OutgoingMessage,
  PermanentMailError,
  type SentMessage,
  TransientMailError,
} from './types';

/** Delivers through an SMTP server given as a URL (`smtp://user:pass@host:port`, `smtps://...`). */
export class SmtpMailer implements Mailer {
  readonly transport = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(smtpUrl: string) {
    this.transporter = nodemailer.createTransport(smtpUrl);
  }

  /** Sends the message; throws PermanentMailError or TransientMailError when the server refuses. */
  async send(message: OutgoingMessage): Promise<SentMessage> {
    try {
      const info = await this.transporter.sendMail(toMailOptions(message));
      return { messageId: info.messageId };
    } catch (err) {
      throw toMailError(err as NodemailerError);
    }
  }

  async close(): Promise<void> {
    this.transporter.close();
  }
}

/**
 * A reply the server gave decides: 5xx is permanent (nodemailer's `permanent`, which leaves out
 * 503), 4xx transient. Without a reply, an envelope or message nodemailer refused to send is
 * permanent; connection, timeout and TLS failures are transient. Authentication failures are
 * transient too: the server's credentials are wrong, not the message, and a fix lets it through.
 */
function toMailError(err: NodemailerError): MailError {
  const code = err.responseCode !== undefined ? String(err.responseCode) : err.code;
  const options = { code, cause: err };
  const message = `SMTP delivery failed: ${err.message}`;
  const authentication = err.code === 'EAUTH' || err.code === 'ENOAUTH';
  const permanent =
    !authentication &&
    (err.responseCode !== undefined ? err.permanent === true : err.code === 'EENVELOPE' || err.code === 'EMESSAGE');
  return permanent ? new PermanentMailError(message, options) : new TransientMailError(message, options);
}
