import type { DataSource, EntityManager } from 'typeorm';
import type { ExecutionRef } from '../../workflows/shared';
import { assertWithinEmailLimit, BillingLimitExceededError } from '../billing/limits';
import { pooledTransactions, queryIn, type Transactions } from '../db/pipelined-transaction';
import { senderDomains, unverifiedSender } from '../domains/sender-check';
import type { EmailType } from '../entities/template';
import { PermanentMailError } from '../mailer/types';
import { TemplateRenderError, TemplateSyntaxError } from '../rendering/renderer';
import { EmailNotFoundError, type Delivery } from '../sending/delivery';
import { findProjectTemplate } from '../sending/send-queries';
import { emitEmailEvents } from '../webhooks/email-webhooks';
import { workflowEmailId } from './email-ids';
import { PermanentStepError } from './errors';
import type { ExecutionRecords, SkipReason } from './execution-records';
import { insertStepEmail, stepEmailChecks } from './email-step-queries';
import { isExecutionActive } from './executions-queries';

/** A SEND_EMAIL step's config: a template, or an inline message (MARKETING unless told otherwise). */
export interface SendEmailConfig {
  templateId?: string;
  subject?: string;
  body?: string;
  from?: string;
  fromName?: string;
  replyTo?: string;
  type?: EmailType;
}

/** What a SEND_EMAIL step did. */
export interface EmailStepResult {
  emailId: string;
  /** `PROJECT_DISABLED`: the project was suspended before the email went out; the email is FAILED. */
  outcome: 'SENT' | 'SKIPPED' | 'SUPPRESSED' | 'PROJECT_DISABLED' | 'ALREADY_HANDLED' | 'NOT_ACTIVE';
  skipped?: SkipReason;
}

/** The message a step sends, before rendering. */
interface StepMessage {
  templateId: string | null;
  subject: string;
  body: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  type: EmailType;
}

/**
 * SEND_EMAIL: writes the step's one email record (its id derived from execution and step,
 * so a retry finds the record instead of writing another) and delivers it through Delivery,
 * which sends a record at most once. Suppressed addresses, unsubscribed contacts for
 * MARKETING mail, and emails past the project's emails cap are skipped and the skip is
 * recorded on the execution, which goes on; a suppressed address emits `email.suppressed`
 * (for the email id the step would have used, so a retried step emits it once).
 */
export class EmailStep {
  private readonly transactions: Transactions;

  constructor(
    private readonly dataSource: DataSource,
    private readonly delivery: Delivery,
    private readonly records: ExecutionRecords,
  ) {
    this.transactions = pooledTransactions(dataSource);
  }

  /**
   * Sends the step's email. `recorded`: the caller has just recorded this step on the execution,
   * which found it under way, so it is not asked again.
   */
  async send(execution: ExecutionRef, stepId: string, config: SendEmailConfig, recorded = false): Promise<EmailStepResult> {
    const emailId = workflowEmailId(execution.executionId, stepId);
    if (!recorded && !(await isExecutionActive(this.dataSource.manager, execution.executionId))) {
      await this.records.abandonStepEmail(execution.executionId, 'The workflow execution ended before this email was sent');
      return { emailId, outcome: 'NOT_ACTIVE' };
    }
    const skipped = await this.queue(execution, emailId, config);
    if (skipped) {
      await this.records.recordSkip(execution.executionId, stepId, skipped);
      return { emailId, outcome: 'SKIPPED', skipped };
    }
    return { emailId, outcome: await this.deliver(emailId) };
  }

  /**
   * Checks sender, suppression and subscription, then writes the QUEUED record, in one
   * transaction that the project's emails cap rolls back; the reason when the step is skipped
   * instead. A record an earlier attempt wrote is left to be delivered, whatever changed since.
   * The transaction is pipelined: its START goes out with the checks, and for a project without
   * an emails cap (nothing to count under the cap's lock) the record's insert with its COMMIT,
   * two waits for an answer instead of five. A cap first set while this transaction runs counts
   * this email, like every other sent before it, from the next one on.
   */
  private async queue(execution: ExecutionRef, emailId: string, config: SendEmailConfig): Promise<SkipReason | undefined> {
    try {
      return await this.transactions(async (manager, commitWith) => {
        const message = await this.message(manager, execution.projectId, config);
        const checks = await stepEmailChecks(manager, {
          projectId: execution.projectId,
          contactId: execution.contactId,
          emailId,
          senderDomains: message ? senderDomains(message.from) : [],
        });
        if (checks.written) return undefined;
        if (!message) throw new PermanentStepError(`Template ${config.templateId} no longer exists`);
        const { contact } = checks;
        if (!contact) return 'contact_deleted';
        if (!checks.verifiedSender) throw new PermanentStepError(unverifiedSender(message.from).message);
        if (checks.suppressed) {
          const email = { id: emailId, projectId: execution.projectId, contactId: contact.id, toEmail: contact.email, subject: message.subject, campaignId: null };
          await emitEmailEvents(manager, 'email.suppressed', [{ email: { ...email, templateId: message.templateId, workflowId: execution.workflowId }, detail: {} }]);
          return 'suppressed';
        }
        if (message.type === 'MARKETING' && !contact.subscribed) return 'unsubscribed';
        const uncapped = checks.emailsCap === null;
        const inserted = await insertStepEmail(uncapped ? commitWith : queryIn(manager), {
          id: emailId,
          projectId: execution.projectId,
          contactId: contact.id,
          templateId: message.templateId,
          type: message.type,
          toEmail: contact.email,
          from: message.from,
          fromName: message.fromName,
          replyTo: message.replyTo,
          subject: message.subject,
          body: message.body,
          variables: { ...execution.eventData, ...execution.context },
        });
        if (inserted && !uncapped) await assertWithinEmailLimit(manager, execution.projectId, 1);
        return undefined;
      });
    } catch (err) {
      if (err instanceof BillingLimitExceededError) return 'billing_limit';
      throw err;
    }
  }

  /** The template's message (undefined when the template no longer exists), or the inline one. */
  private async message(manager: EntityManager, projectId: string, config: SendEmailConfig): Promise<StepMessage | undefined> {
    if (config.templateId) {
      const template = await findProjectTemplate(manager, projectId, config.templateId);
      if (!template) return undefined;
      const { id, subject, body, from, fromName, replyTo, type } = template;
      return { templateId: id, subject, body, from, fromName, replyTo, type };
    }
    if (!config.subject || !config.body || !config.from) throw new PermanentStepError('SEND_EMAIL needs a templateId, or a subject, body and from');
    return {
      templateId: null,
      subject: config.subject,
      body: config.body,
      from: config.from,
      fromName: config.fromName ?? null,
      replyTo: config.replyTo ?? null,
      type: config.type ?? 'MARKETING',
    };
  }

  /** Delivers the record; a rejected message or a template that cannot render fails the step for good. */
  private async deliver(emailId: string): Promise<EmailStepResult['outcome']> {
    try {
      const outcome = await this.delivery.deliver(emailId);
      return outcome === 'MISSING' ? 'ALREADY_HANDLED' : outcome;
    } catch (err) {
      if (err instanceof EmailNotFoundError) return 'ALREADY_HANDLED';
      if (err instanceof PermanentMailError) throw new PermanentStepError(err.message);
      if (err instanceof TemplateSyntaxError || err instanceof TemplateRenderError) {
        await this.delivery.fail(emailId, err.message);
        throw new PermanentStepError(err.message);
      }
      throw err;
    }
  }
}
