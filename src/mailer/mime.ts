import type { SendMailOptions } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { OutgoingMessage } from './types';

/** The bare addresses in RFC 5322 address strings (`"Ada" <ada@example.com>` -> `ada@example.com`). */
function bareAddresses(addresses: string[]): string[] {
  return addresses.flatMap((address) => addressparser(address, { flatten: true }).map((parsed) => parsed.address));
}

/**
 * Who a message is delivered to: the addresses of `to`, and nothing else. Custom headers
 * never add a recipient (a `Bcc` header would otherwise join the SMTP envelope or an SES
 * raw message's recipients).
 */
export function envelopeRecipients(message: OutgoingMessage): string[] {
  return bareAddresses(message.to);
}

/** The message in nodemailer's terms, shared by the SMTP transport and the SES raw path; the envelope is explicit. */
export function toMailOptions(message: OutgoingMessage): SendMailOptions {
  return {
    from: message.from,
    to: message.to,
    replyTo: message.replyTo,
    subject: message.subject,
    html: message.html,
    text: message.text,
    headers: message.headers,
    envelope: { from: bareAddresses([message.from])[0], to: envelopeRecipients(message) },
    attachments: message.attachments?.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      ...(a.cid ? { cid: a.cid } : {}),
    })),
  };
}

/** The complete RFC 5322 message (headers, both bodies, attachments) as bytes. */
export function buildRawMessage(message: OutgoingMessage): Promise<Buffer> {
  return new MailComposer(toMailOptions(message)).compile().build();
}
