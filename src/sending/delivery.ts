import escapeHtml from 'escape-html';
import type { DataSource } from 'typeorm';
import { countSent } from '../campaigns/campaign-queries';
import type { Config } from '../config';
import type { ContactsService } from '../contacts/contacts-service';
import { contactLinks } from '../contacts/links';
import { Contact } from '../entities/contact';
import { Email, EmailAttachment } from '../entities/email';
import type { Mailer, OutgoingMessage } from '../mailer/types';
import { PermanentMailError } from '../mailer/types';
import { buildScope, compileEmail, renderEmail } from '../rendering/renderer';
import { disabledReason } from '../reputation/reputation-queries';
import { isSuppressed } from './suppressions';

/** How one delivery attempt ended. `PROJECT_DISABLED`: the project is suspended, so the email was marked FAILED. */
export type DeliveryOutcome = 'SENT' | 'SUPPRESSED' | 'PROJECT_DISABLED' | 'MISSING' | 'ALREADY_HANDLED';

/** The FAILED reason of an email whose project was suspended before it went out. */
const PROJECT_SUSPENDED_REASON = 'Not sent: the project is suspended';

/** An email record that is not there (yet); its transaction may still be committing. */
export class EmailNotFoundError extends Error {}

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

/**
 * Renders and sends one stored email through the Mailer, at most once per record:
 * a record that is no longer QUEUED is left alone, so a retried activity does not send again.
 * The email of a disabled project is marked FAILED instead.
 */
export class Delivery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly mailer: Mailer,
    private readonly config: Config,
    private readonly contacts: ContactsService,
  ) {}

  async deliver(emailId: string): Promise<DeliveryOutcome> {
    const email = await this.dataSource.getRepository(Email).findOneBy({ id: emailId });
    if (!email) throw new EmailNotFoundError(`email ${emailId} does not exist`);
    if (email.status !== 'QUEUED') return 'ALREADY_HANDLED';
    if ((await disabledReason(this.dataSource.manager, email.projectId)) !== undefined) {
      await this.fail(email, PROJECT_SUSPENDED_REASON);
      return 'PROJECT_DISABLED';
    }
    if (await isSuppressed(this.dataSource.manager, email.projectId, email.toEmail)) {
      await this.dataSource.getRepository(Email).update({ id: emailId, status: 'QUEUED' }, { status: 'SUPPRESSED' });
      return 'SUPPRESSED';
    }
    const message = await this.compose(email);
    await this.dataSource.query('UPDATE emails SET attempts = attempts + 1 WHERE id = $1', [emailId]);
    let messageId: string;
    try {
      ({ messageId } = await this.mailer.send(message));
    } catch (err) {
      if (err instanceof PermanentMailError) await this.fail(email, err.message);
      throw err;
    }
    await this.contacts.transaction(async (tx) => {
      const [, updated]: [unknown, number] = await tx.manager.query(
        `UPDATE emails SET status = 'SENT', message_id = $2, sent_at = now(), updated_at = now() WHERE id = $1 AND status = 'QUEUED'`,
        [emailId, messageId],
      );
      if (updated !== 1) return;
      await tx.record([this.event(email, 'email.sent', { messageId })]);
      if (email.campaignId) await countSent(tx.manager, email.campaignId);
    });
    return 'SENT';
  }

  /** Marks a queued email FAILED with the reason and stores an `email.failed` event. */
  async fail(email: Email | string, reason: string): Promise<void> {
    const record = typeof email === 'string' ? await this.dataSource.getRepository(Email).findOneBy({ id: email }) : email;
    if (!record) return;
    await this.contacts.transaction(async (tx) => {
      const [, updated]: [unknown, number] = await tx.manager.query(
        `UPDATE emails SET status = 'FAILED', error = $2, updated_at = now() WHERE id = $1 AND status = 'QUEUED'`,
        [record.id, reason.slice(0, 1000)],
      );
      if (updated === 1) await tx.record([this.event(record, 'email.failed', { reason })]);
    });
  }

  private event(email: Email, name: string, data: Record<string, unknown>) {
    return { projectId: email.projectId, contactId: email.contactId, name, source: 'SYSTEM' as const, data: { emailId: email.id, subject: email.subject, ...data } };
  }

  /** Renders the email for its contact and builds the outgoing message. */
  private async compose(email: Email): Promise<OutgoingMessage> {
    const contact = email.contactId ? await this.dataSource.getRepository(Contact).findOneBy({ id: email.contactId }) : null;
    const links = contact ? contactLinks(this.config, contact.id) : undefined;
    const scope = buildScope({ email: email.toEmail, data: contact?.data ?? {}, transient: email.variables, links });
    const rendered = await renderEmail(compileEmail({ subject: email.subject, body: email.body }), scope);
    const attachments = await this.dataSource.getRepository(EmailAttachment).find({ where: { emailId: email.id }, order: { position: 'ASC' } });
    const message: OutgoingMessage = {
      from: formatAddress(email.from, email.fromName),
      to: [formatAddress(email.toEmail, email.toName)],
      ...(email.replyTo ? { replyTo: email.replyTo } : {}),
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      headers: email.headers,
      attachments: attachments.map(({ filename, contentType, content }) => ({ filename, contentType, content })),
      tags: { emailId: email.id, projectId: email.projectId },
    };
    return email.type === 'MARKETING' && links ? withUnsubscribe(message, links.unsubscribeUrl, email.body.includes('unsubscribeUrl')) : message;
  }
}
