import type { Client } from '@temporalio/client';
import type { DataSource, EntityManager } from 'typeorm';
import { inPool } from '../automations/pool';
import { assertWithinEmailLimit } from '../billing/limits';
import type { ContactsService } from '../contacts/contacts-service';
import type { UpsertOutcome } from '../contacts/contacts-queries';
import { parseDataPatch, type DataPatch } from '../contacts/data-rules';
import { assertVerifiedSender } from '../domains/sender-check';
import type { Email } from '../entities/email';
import type { Template } from '../entities/template';
import type { EventTransaction } from '../events/event-store';
import { ApiError, validationError, type FieldError } from '../http/errors';
import { markdownToHtml } from '../rendering/markdown';
import { TemplateSyntaxError, validateTemplate } from '../rendering/renderer';
import { emitEmailEvents } from '../webhooks/email-webhooks';
import { storeContent } from './email-contents-queries';
import { fieldErrors, itemErrors, type Recipient, type SendRequest } from './send-request';
import { findProjectTemplate, insertEmails, suppressedAmong } from './send-queries';
import { deliverEmail } from '../../workflows/delivery';
import { emailSummary, emailWorkflowId } from '../../workflows/shared';

/** What `/v1/send` answers for one recipient. */
export interface SentRecipient {
  contact: { id: string; email: string };
  email: string;
  status: 'QUEUED' | 'SCHEDULED' | 'SUPPRESSED';
}

/** The message every recipient of one request gets, before per-recipient rendering. */
interface Message {
  subject: string;
  body: string;
  from: Recipient;
  replyTo: string | null;
  type: Template['type'];
  templateId: string | null;
  patch: DataPatch;
}

/** Work a caller runs first in a send's transaction; false: nothing is to be sent. */
export type Claim = (manager: EntityManager) => Promise<boolean>;

/** Delivery workflows started at once while a request's transaction is open (a batch starts up to 1,000). */
const START_CONCURRENCY = 32;

/**
 * A refusal of one item of a batch as the refusal of the batch: field errors named
 * `[index].field`, any other refusal's message prefixed with the item and `details.index` set.
 */
function refusalOfItem(err: unknown, index: number): unknown {
  if (!(err instanceof ApiError)) return err;
  const errors = fieldErrors(err);
  return new ApiError(err.statusCode, err.code, errors ? err.message : `Batch item [${index}]: ${err.message}`, {
    ...err.options,
    ...(errors ? { errors: itemErrors(index, errors) } : {}),
    details: { ...err.options.details, index },
  });
}

/**
 * `/v1/send` and `/v1/send/batch`, one path for both: resolves each request's template and
 * overrides, checks its sender domain and Liquid syntax, all before anything is stored; then
 * in one transaction upserts every recipient's contact, stores their email records (SCHEDULED
 * when the request has `scheduledAt`), checks the project's emails cap over all of them (403
 * `BILLING_LIMIT_EXCEEDED`) and starts each delivery workflow `email/<emailId>`: the whole
 * call commits or nothing of it does, and a workflow whose record never committed ends
 * without sending.
 */
export class SendService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
  ) {}

  /**
   * One request (`/v1/send`, the SMTP relay): its recipients' emails, in the order of `to`.
   * `claim` runs first in the send's transaction (an idempotency key the caller holds): when
   * it answers false nothing is stored or sent and the answer is empty.
   */
  async send(projectId: string, request: SendRequest, claim?: Claim): Promise<SentRecipient[]> {
    const [sent] = await this.sendAll(projectId, [request], false, claim);
    return sent;
  }

  /** A batch (`/v1/send/batch`): per request, in order, its recipients' emails; a refused item refuses the batch, naming it. */
  sendBatch(projectId: string, requests: SendRequest[]): Promise<SentRecipient[][]> {
    return this.sendAll(projectId, requests, true);
  }

  private async sendAll(projectId: string, requests: SendRequest[], batch: boolean, claim?: Claim): Promise<SentRecipient[][]> {
    const messages = await this.messages(projectId, requests, batch);
    return this.contacts.transaction(async (tx) => {
      if (claim && !(await claim(tx.manager))) return requests.map(() => []);
      const stored: { contacts: UpsertOutcome[]; emails: Email[] }[] = [];
      for (const [index, request] of requests.entries()) {
        try {
          stored.push(await this.store(tx, projectId, request, messages[index]));
        } catch (err) {
          throw batch ? refusalOfItem(err, index) : err;
        }
      }
      const counted = stored.flatMap(({ emails }) => emails).filter((email) => email.status !== 'SUPPRESSED');
      const suppressed = stored.flatMap(({ emails }) => emails).filter((email) => email.status === 'SUPPRESSED');
      await emitEmailEvents(tx.manager, 'email.suppressed', suppressed.map((email) => ({ email, detail: {} })));
      // Before the workflows start: waiting for the cap's lock must never stretch the time a
      // started workflow waits for its record to commit.
      if (counted.length > 0) await assertWithinEmailLimit(tx.manager, projectId, counted.length);
      await inPool(counted, START_CONCURRENCY, (email) => this.startDelivery(email));
      return stored.map(({ contacts, emails }) =>
        emails.map((email, i) => ({
          contact: { id: contacts[i].id, email: contacts[i].email },
          email: email.id,
          status: email.status as SentRecipient['status'],
        })),
      );
    });
  }

  /** Every request's message, checked before anything is stored; a batch's field errors name their item. */
  private async messages(projectId: string, requests: SendRequest[], batch: boolean): Promise<Message[]> {
    const messages: Message[] = [];
    const errors: FieldError[] = [];
    for (const [index, request] of requests.entries()) {
      try {
        messages.push(await this.message(projectId, request));
      } catch (err) {
        const problems = fieldErrors(err);
        if (!problems) throw batch ? refusalOfItem(err, index) : err;
        errors.push(...(batch ? itemErrors(index, problems) : problems));
      }
    }
    if (errors.length > 0) throw validationError(errors);
    return messages;
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
      // Literal content (SMTP relay messages) is never read as Liquid, so there is no syntax to check.
      if (!request.literal) validateTemplate({ subject, body });
    } catch (err) {
      if (!(err instanceof TemplateSyntaxError)) throw err;
      throw validationError([{ field: err.field ?? 'body', code: 'invalid_template', message: err.message }]);
    }
    await assertVerifiedSender(this.dataSource.manager, projectId, from.email);
    return {
      subject,
      body,
      from,
      replyTo: request.replyTo ?? template?.replyTo ?? null,
      type: template?.type ?? 'TRANSACTIONAL',
      templateId: template?.id ?? null,
      patch: parseDataPatch(request.data),
    };
  }

  /**
   * Upserts one request's contacts and stores its shared content and an email record per
   * recipient, in one statement: QUEUED, SCHEDULED when the request has a time, or SUPPRESSED
   * for a suppressed address.
   */
  private async store(tx: EventTransaction, projectId: string, request: SendRequest, message: Message) {
    const { patch } = message;
    const inputs = request.to.map((recipient) => ({ email: recipient.email, patch, subscribed: request.subscribed }));
    const contacts = await this.contacts.upsertMany(tx, projectId, inputs, false);
    const contentId = await storeContent(tx.manager, projectId, { body: message.body, text: request.text, literal: request.literal, headers: request.headers, variables: patch.transient, attachments: request.attachments });
    const suppressed = await suppressedAmong(tx.manager, projectId, contacts.map((contact) => contact.email));
    const scheduledAt = request.scheduledAt ?? null;
    const emails = await insertEmails(
      tx.manager,
      request.to.map((recipient, i) => ({
        projectId,
        contactId: contacts[i].id,
        templateId: message.templateId,
        source: 'SEND' as const,
        type: message.type,
        toEmail: contacts[i].email,
        toName: recipient.name ?? null,
        from: message.from.email,
        fromName: message.from.name ?? null,
        replyTo: message.replyTo,
        subject: message.subject,
        body: null,
        contentId,
        headers: {},
        variables: {},
        status: suppressed.has(contacts[i].email) ? ('SUPPRESSED' as const) : scheduledAt ? ('SCHEDULED' as const) : ('QUEUED' as const),
        attempts: 0,
        scheduledAt,
      })),
    );
    return { contacts, emails };
  }

  /**
   * Starts `email/<emailId>` (with its time, for a scheduled email) before the record commits:
   * if the start fails nothing is stored; if the commit fails, the workflow finds no record and
   * ends (delivery retries a missing record a few times, then gives up as MISSING without sending).
   */
  private async startDelivery(email: Email): Promise<void> {
    if (!this.temporal) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly');
    try {
      await this.temporal.workflow.start(deliverEmail, {
        taskQueue: this.taskQueue,
        workflowId: emailWorkflowId(email.id),
        args: email.scheduledAt ? [email.id, { scheduledAt: email.scheduledAt.toISOString() }] : [email.id],
        staticSummary: emailSummary(email.toEmail, email.subject),
      });
    } catch (err) {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly', {
        details: { reason: (err as Error).message },
      });
    }
  }
}
