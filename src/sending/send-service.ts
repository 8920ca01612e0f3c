import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { ContactsService } from '../contacts/contacts-service';
import { parseDataPatch } from '../contacts/data-rules';
import { ApiError, validationError, type FieldError } from '../http/errors';
import { markdownToHtml } from '../rendering/markdown';
import { TemplateSyntaxError, validateTemplate } from '../rendering/renderer';
import type { SendQueueBell } from './send-queue-bell';
import { fieldErrors, itemErrors, refusalOfItem, type SendRequest } from './send-request';
import { findProjectTemplate, type StoredEmail } from './send-queries';
import { SendWriter, type Claim, type Message } from './send-writer';
import { deliverEmail } from '../../workflows/delivery';
import { emailSummary, emailWorkflowId } from '../../workflows/shared';

export type { Claim };

/** What `/v1/send` answers for one recipient. */
export interface SentRecipient {
  contact: { id: string; email: string };
  email: string;
  status: 'QUEUED' | 'SCHEDULED' | 'SUPPRESSED';
}

/**
 * `/v1/send` and `/v1/send/batch`, one path for both: resolves each request's template and
 * overrides, checks its sender domain and Liquid syntax, all before anything is stored; then
 * stores the call through the SendWriter, in one transaction with the calls that arrive with it:
 * every recipient's contact upserted, their email records stored and the project's emails cap
 * checked over all of them (403 `BILLING_LIMIT_EXCEEDED`). The whole call commits or nothing of
 * it does. An email to send now is committed to the send queue and the call answered without a
 * call to Temporal; the send lanes deliver it. A scheduled email has its own delivery workflow
 * `email/<emailId>`, which waits for its time.
 */
export class SendService {
  private readonly writer: SendWriter;

  constructor(
    private readonly dataSource: DataSource,
    contacts: ContactsService,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
    sendQueue: SendQueueBell,
  ) {
    this.writer = new SendWriter(dataSource, contacts, taskQueue, sendQueue, (email) => this.startScheduled(email));
  }

  /**
   * One request (`/v1/send`, the SMTP relay): its recipients' emails, in the order of `to`.
   * `claim` runs first in the send's transaction (an idempotency key the caller holds): when
   * it answers false nothing is stored or sent and the answer is empty.
   */
  async send(projectId: string, request: SendRequest, claim?: Claim): Promise<SentRecipient[]> {
    const [sent] = await this.sendAll(projectId, [request], false, claim);
    return sent ?? [];
  }

  /** A batch (`/v1/send/batch`): per request, in order, its recipients' emails; a refused item refuses the batch, naming it. */
  sendBatch(projectId: string, requests: SendRequest[]): Promise<SentRecipient[][]> {
    return this.sendAll(projectId, requests, true);
  }

  private async sendAll(projectId: string, requests: SendRequest[], batch: boolean, claim?: Claim): Promise<SentRecipient[][]> {
    const messages = await this.messages(projectId, requests, batch);
    const stored = await this.writer.store({ projectId, requests, messages, batch, claim });
    if (stored.length === 0) return requests.map(() => []);
    return stored.map(({ contacts, emails }) =>
      emails.map((email, i) => ({
        contact: { id: contacts[i].id, email: contacts[i].email },
        email: email.id,
        status: email.status as SentRecipient['status'],
      })),
    );
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
   * Starts a scheduled email's `email/<emailId>`, which waits for its time, before the record
   * commits: if the start fails nothing is stored; if the commit fails, the workflow finds no
   * record at its time and ends without sending.
   */
  private async startScheduled(email: StoredEmail): Promise<void> {
    if (!this.temporal) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly');
    try {
      await this.temporal.workflow.start(deliverEmail, {
        taskQueue: this.taskQueue,
        workflowId: emailWorkflowId(email.id),
        args: [email.id, { scheduledAt: email.scheduledAt!.toISOString() }],
        staticSummary: emailSummary(email.toEmail, email.subject),
      });
    } catch (err) {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly', {
        details: { reason: (err as Error).message },
      });
    }
  }
}
