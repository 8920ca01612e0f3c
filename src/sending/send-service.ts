import type { Client } from '@temporalio/client';
import type { DataSource, EntityManager } from 'typeorm';
import { assertWithinEmailLimit } from '../billing/limits';
import type { ContactsService } from '../contacts/contacts-service';
import type { UpsertOutcome } from '../contacts/contacts-queries';
import { parseDataPatch } from '../contacts/data-rules';
import { assertVerifiedSender } from '../domains/sender-check';
import type { Email } from '../entities/email';
import type { Template } from '../entities/template';
import { ApiError, validationError } from '../http/errors';
import { markdownToHtml } from '../rendering/markdown';
import { TemplateSyntaxError, validateTemplate } from '../rendering/renderer';
import { storeContent } from './email-contents-queries';
import type { Recipient, SendRequest } from './send-request';
import { findProjectTemplate, insertEmail, isSuppressed } from './send-queries';
import { deliverEmail } from '../../workflows/delivery';
import { emailSummary, emailWorkflowId } from '../../workflows/shared';

/** What `/v1/send` answers for one recipient. */
export interface SentRecipient {
  contact: { id: string; email: string };
  email: string;
  status: 'QUEUED' | 'SUPPRESSED';
}

/** The message every recipient of one request gets, before per-recipient rendering. */
interface Message {
  subject: string;
  body: string;
  from: Recipient;
  replyTo: string | null;
  type: Template['type'];
  templateId: string | null;
}

/**
 * `/v1/send`: resolves the template and overrides, checks the sender domain and the
 * Liquid syntax once, then in one transaction upserts every recipient's contact, stores
 * their email records, checks the project's emails cap (403 `BILLING_LIMIT_EXCEEDED`) and
 * starts each delivery workflow `email/<emailId>`: the whole request commits or nothing
 * of it does, and a workflow whose record never committed ends without sending.
 */
export class SendService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
  ) {}

  async send(projectId: string, request: SendRequest): Promise<SentRecipient[]> {
    const message = await this.message(projectId, request);
    return this.contacts.transaction(async (tx) => {
      const patch = parseDataPatch(request.data);
      const inputs = request.to.map((recipient) => ({ email: recipient.email, patch, subscribed: request.subscribed }));
      const contacts = await this.contacts.upsertMany(tx, projectId, inputs, false);
      const { body } = message;
      const contentId = await storeContent(tx.manager, projectId, { body, headers: request.headers, variables: patch.transient, attachments: request.attachments });
      const emails: Email[] = [];
      for (const [i, recipient] of request.to.entries()) {
        emails.push(await this.store(tx.manager, projectId, message, recipient, contacts[i], contentId));
      }
      const queued = emails.filter((email) => email.status === 'QUEUED');
      // Before the workflows start: waiting for the cap's lock must never stretch the time a
      // started workflow waits for its record to commit.
      if (queued.length > 0) await assertWithinEmailLimit(tx.manager, projectId, queued.length);
      for (const email of queued) await this.startDelivery(email);
      return emails.map((email, i) => ({
        contact: { id: contacts[i].id, email: contacts[i].email },
        email: email.id,
        status: email.status as SentRecipient['status'],
      }));
    });
  }

  /** Merges the template (if any) with the request's overrides and checks what every recipient shares. */
  private async message(projectId: string, request: SendRequest): Promise<Message> {
    const template = request.template
      ? await findProjectTemplate(this.dataSource.manager, projectId, request.template)
      : null;
    if (request.template && !template) {
      throw validationError([{ field: 'template', code: 'not_found', message: 'No template with this id in the project', received: request.template }]);
    }
    const from = request.from ?? (template ? { email: template.from, ...(template.fromName ? { name: template.fromName } : {}) } : undefined);
    if (!from) throw validationError([{ field: 'from', code: 'required', message: 'from is required when the template has none' }]);
    const body = request.body === undefined ? template!.body : request.bodyIsMarkdown ? await markdownToHtml(request.body) : request.body;
    const subject = request.subject ?? template!.subject;
    if (!subject) throw validationError([{ field: 'subject', code: 'required', message: 'The template has no subject; send one' }]);
    try {
      validateTemplate({ subject, body });
    } catch (err) {
      if (!(err instanceof TemplateSyntaxError)) throw err;
      throw validationError([{ field: err.field ?? 'body', code: 'invalid_template', message: err.message }]);
    }
    await assertVerifiedSender(this.dataSource.manager, projectId, from.email);
    return { subject, body, from, replyTo: request.replyTo ?? template?.replyTo ?? null, type: template?.type ?? 'TRANSACTIONAL', templateId: template?.id ?? null };
  }

  /** Stores one recipient's email record (QUEUED, or SUPPRESSED for a suppressed address) on the request's shared content. */
  private async store(
    manager: EntityManager,
    projectId: string,
    message: Message,
    recipient: Recipient,
    contact: UpsertOutcome,
    contentId: string,
  ): Promise<Email> {
    const suppressed = await isSuppressed(manager, projectId, contact.email);
    return insertEmail(manager, {
      projectId,
      contactId: contact.id,
      templateId: message.templateId,
      source: 'SEND',
      type: message.type,
      toEmail: contact.email,
      toName: recipient.name ?? null,
      from: message.from.email,
      fromName: message.from.name ?? null,
      replyTo: message.replyTo,
      subject: message.subject,
      body: null,
      contentId,
      headers: {},
      variables: {},
      status: suppressed ? 'SUPPRESSED' : 'QUEUED',
      attempts: 0,
    });
  }

  /**
   * Starts `email/<emailId>` before the record commits: if the start fails nothing is
   * stored; if the commit fails, the workflow finds no record and ends (delivery retries a
   * missing record a few times, then gives up as MISSING without sending).
   */
  private async startDelivery(email: Email): Promise<void> {
    if (!this.temporal) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly');
    try {
      await this.temporal.workflow.start(deliverEmail, {
        taskQueue: this.taskQueue,
        workflowId: emailWorkflowId(email.id),
        args: [email.id],
        staticSummary: emailSummary(email.toEmail, email.subject),
      });
    } catch (err) {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly', {
        details: { reason: (err as Error).message },
      });
    }
  }
}
