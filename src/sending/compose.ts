import escapeHtml from 'escape-html';
import type { Config } from '../config';
import { contactLinks } from '../contacts/links';
import type { Email } from '../entities/email';
import type { OutgoingAttachment, OutgoingMessage } from '../mailer/types';
import { buildScope, compileEmail, renderEmail, textOfHtml, type RenderedEmail } from '../rendering/renderer';

/**
 * The fields of an email record that composing its message reads, with its body (its own or
 * its shared content's), a text part to send as it is, if any, and whether subject and body
 * are sent exactly as written (`literal`, SMTP relay messages) instead of rendered as Liquid.
 */
export type ComposableEmail = Pick<
  Email,
  'id' | 'projectId' | 'toEmail' | 'toName' | 'from' | 'fromName' | 'replyTo' | 'subject' | 'headers' | 'variables' | 'type'
> & { body: string; text?: string | null; literal?: boolean };

/** The contact an email goes to, as composing sees it. */
export interface ComposableContact {
  id: string;
  data: Record<string, unknown>;
}

/** An address with an optional display name, quoted for a header. */
export function formatAddress(email: string, name?: string | null): string {
  return name ? `"${name.replace(/["\\]/g, '\\$&')}" <${email}>` : email;
}

/** Adds what RFC 8058 and the CONTRACT ask of MARKETING mail: a visible link and one-click headers. */
function withUnsubscribe(message: OutgoingMessage, unsubscribeUrl: string, bodyHasLink: boolean): OutgoingMessage {
  const footer = bodyHasLink ? { html: '', text: '' } : {
    html: `<p style="font-size:12px;color:#666"><a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>`,
    text: `\n\nUnsubscribe: ${unsubscribeUrl}`,
  };
  return {
    ...message,
    html: message.html + footer.html,
    text: message.text + footer.text,
    headers: { ...message.headers, 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** Renders the email for its contact (null: none) and builds the outgoing message; throws TemplateRenderError. */
export async function composeMessage(
  config: Pick<Config, 'tokenSecret' | 'publicUrl'>,
  email: ComposableEmail,
  contact: ComposableContact | null,
  attachments: OutgoingAttachment[],
): Promise<OutgoingMessage> {
  const links = contact ? contactLinks(config, contact.id) : undefined;
  const scope = buildScope({ email: email.toEmail, data: contact?.data ?? {}, transient: email.variables, links });
  const rendered: RenderedEmail = email.literal
    ? { subject: email.subject, html: email.body, text: email.text ?? textOfHtml(email.body) }
    : await renderEmail(compileEmail({ subject: email.subject, body: email.body }), scope);
  const message: OutgoingMessage = {
    from: formatAddress(email.from, email.fromName),
    to: [formatAddress(email.toEmail, email.toName)],
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: rendered.subject,
    html: rendered.html,
    text: email.text ?? rendered.text,
    headers: email.headers,
    attachments,
    tags: { emailId: email.id, projectId: email.projectId },
  };
  return email.type === 'MARKETING' && links ? withUnsubscribe(message, links.unsubscribeUrl, email.body.includes('unsubscribeUrl')) : message;
}
