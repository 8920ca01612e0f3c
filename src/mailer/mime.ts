import type { SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { OutgoingMessage } from './types';

/** The message in nodemailer's terms, shared by the SMTP transport and the SES raw path. */
export function toMailOptions(message: OutgoingMessage): SendMailOptions {
  return {
    from: message.from,
    to: message.to,
    replyTo: message.replyTo,
    subject: message.subject,
    html: message.html,
    text: message.text,
    headers: message.headers,
    attachments: message.attachments?.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
    })),
  };
}

/** The complete RFC 5322 message (headers, both bodies, attachments) as bytes. */
export function buildRawMessage(message: OutgoingMessage): Promise<Buffer> {
  return new MailComposer(toMailOptions(message)).compile().build();
}
