import type { DataSource, EntityManager } from 'typeorm';
import type { QueuedEmail } from '../campaigns/audience-queries';
import { markSent } from '../campaigns/campaigns-queries';
import type { Config } from '../config';
import type { ContactsService } from '../contacts/contacts-service';
import { assertWithinEmailLimit, BillingLimitExceededError } from '../billing/limits';
import type { Email, EmailStatus } from '../entities/email';
import { MailEventApplier } from '../mail-events/mail-event-applier';
import type { Mailer, OutgoingMessage } from '../mailer/types';
import { PermanentMailError } from '../mailer/types';
import { domainOf, isVerifiedSender } from '../domains/sender-check';
import { ReputationService } from '../reputation/reputation-service';
import { composeMessage } from './compose';
import { loadParts, type EmailParts } from './email-contents-queries';
import { GroupWriter } from '../db/group-writer';
import { emitEmailEvents, type HookedEmail } from '../webhooks/email-webhooks';
import {
  cancelScheduledEmail,
  claimQueuedEmails,
  type DeliverableEmail,
  failQueuedEmail,
  findDeliverableEmail,
  findEmail,
  releaseScheduledEmail,
  type ReleasedEmail,
  suppressQueuedEmail,
} from './send-queries';

/** The fields of an email record that recording its outcome reads. */
type EventSubject = Pick<Email, 'id' | 'projectId' | 'contactId' | 'campaignId' | 'subject'>;
/** An email whose outcome is recorded with its `email.*` webhook event. */
type WebhookSubject = EventSubject & HookedEmail;

/** An email the transport accepted, to record SENT. */
interface Accepted {
  email: WebhookSubject;
  messageId: string;
}

/** The writes around each send: counting its attempt (false: no longer QUEUED, not to send) and recording it SENT. */
export interface SendWrites {
  claim(emailId: string): Promise<boolean>;
  record(accepted: Accepted): Promise<unknown>;
}

/** How one delivery attempt ended. `PROJECT_DISABLED`: the project is suspended, so the email was marked FAILED. */
export type DeliveryOutcome = 'SENT' | 'SUPPRESSED' | 'PROJECT_DISABLED' | 'MISSING' | 'ALREADY_HANDLED';

/** The FAILED reason of an email whose project was suspended before it went out. */
const PROJECT_SUSPENDED_REASON = 'Not sent: the project is suspended';

/** An email record that is not there (yet); its transaction may still be committing. */
export class EmailNotFoundError extends Error {}

/**
 * Renders and sends stored emails through the Mailer, at most once per record: a record that
 * is no longer QUEUED is left alone, so a retried activity does not send again. One email at a
 * time (`deliver`), or a campaign batch's emails loaded together (`deliverQueued`). Mail events
 * that arrived before an email's outcome was recorded are applied as it is.
 */
export class Delivery {
  private readonly mailEvents: MailEventApplier;
  /** The writes of single deliveries (`deliver`): those that run at the same time share statements and transactions. */
  private readonly writes: SendWrites;

  constructor(
    private readonly dataSource: DataSource,
    private readonly mailer: Mailer,
    private readonly config: Config,
    private readonly contacts: ContactsService,
  ) {
    this.mailEvents = new MailEventApplier(contacts, new ReputationService(dataSource));
    this.writes = this.batchWrites();
  }

  /**
   * Delivers one email (`/v1/send`, workflow and test emails): loaded with its project's standing,
   * its suppression and its contact in one statement; the email of a disabled project is marked
   * FAILED instead, and a suppressed one SUPPRESSED.
   */
  async deliver(emailId: string): Promise<DeliveryOutcome> {
    const email = await findDeliverableEmail(this.dataSource.manager, emailId);
    if (!email) throw new EmailNotFoundError(`email ${emailId} does not exist`);
    if (email.status !== 'QUEUED') return 'ALREADY_HANDLED';
    return this.deliverLoaded(email, await loadParts(this.dataSource.manager, email), this.writes);
  }

  /**
   * Delivers an email loaded with what its delivery checks and its parts (one email, or one of a
   * send lane's claims) through `writes`: the email of a disabled project is marked FAILED
   * instead, and a suppressed one SUPPRESSED.
   */
  async deliverLoaded(email: DeliverableEmail, parts: EmailParts, writes: SendWrites): Promise<DeliveryOutcome> {
    if (email.disabledReason !== null) {
      await this.fail(email, PROJECT_SUSPENDED_REASON);
      return 'PROJECT_DISABLED';
    }
    if (email.suppressed) return this.markSuppressed(email);
    const message = await composeMessage(this.config, { ...email, ...parts }, email.contact, parts.attachments);
    return this.send(email, message, writes);
  }

  /**
   * At a scheduled email's time: moves it SCHEDULED -> QUEUED and checks the emails cap again
   * in one transaction; answers its status after (QUEUED: to deliver). The email already holds
   * its slot (it counted when it was scheduled), so the check adds nothing: only a project over
   * its cap now (the cap was lowered meanwhile) has the email marked FAILED with the reason,
   * which frees the slot; so has an email whose sender domain is no longer a verified domain of
   * the project. A cancelled email stays CANCELLED; a retry after a release that
   * committed finds it QUEUED. Suppression is checked by `deliver`, as for any email.
   */
  async release(emailId: string): Promise<EmailStatus> {
    return this.contacts.transaction(async (tx) => {
      const email = await releaseScheduledEmail(tx.manager, emailId);
      if (!email) {
        const current = await findEmail(tx.manager, emailId);
        if (!current) throw new EmailNotFoundError(`email ${emailId} does not exist`);
        return current.status;
      }
      const refusal = await this.refusalAtRelease(tx.manager, email);
      if (refusal) {
        const reason = `Not sent at its scheduled time: ${refusal}`;
        await failQueuedEmail(tx.manager, email.id, reason);
        await tx.record([this.event(email, 'email.failed', { reason })]);
        await emitEmailEvents(tx.manager, 'email.failed', [{ email, detail: { reason } }]);
        return 'FAILED';
      }
      return 'QUEUED';
    });
  }

  /** Why a released scheduled email may not be sent now: the project is over its emails cap, or its sender domain is no longer verified. */
  private async refusalAtRelease(manager: EntityManager, email: ReleasedEmail): Promise<string | undefined> {
    try {
      await assertWithinEmailLimit(manager, email.projectId, 0);
    } catch (err) {
      if (!(err instanceof BillingLimitExceededError)) throw err;
      return err.message;
    }
    if (!(await isVerifiedSender(manager, email.projectId, email.from))) {
      return `the sender domain ${domainOf(email.from)} is no longer a verified domain of this project`;
    }
    return undefined;
  }

  /** Marks a scheduled email CANCELLED (its delivery was cancelled while it waited) unless it was released already. */
  async cancelScheduled(emailId: string): Promise<void> {
    await cancelScheduledEmail(this.dataSource.manager, emailId);
  }

  /**
   * Grouped writes of sends: a campaign batch's (deliverQueued), or those of single deliveries
   * in this process. Each attempt is counted just before its send and each send recorded as
   * soon as it returns; those that come while the previous claim or record is being written
   * share the next statement or transaction (a record transaction begins once the previous one
   * committed, while that one's events are still being dispatched). So none waits for another
   * send, and a campaign's counter row is written once per record transaction, not once per
   * email. A group the database refuses is written again one email at a time, so that one
   * email's failure is its own.
   */
  batchWrites(): SendWrites {
    return { claim: this.groupedClaims(), record: this.groupedRecords() };
  }

  /** Grouped claims (see batchWrites); with `sendClaim`, of emails a send lane's pass claimed under that token and still holds. */
  groupedClaims(sendClaim?: string): SendWrites['claim'] {
    const claims = new GroupWriter((emailIds: string[]) => this.claim(emailIds, sendClaim), { oneByOneOnFailure: true });
    return (emailId) => claims.add(emailId);
  }

  /** Grouped records of sends (see batchWrites). */
  groupedRecords(): SendWrites['record'] {
    const records = new GroupWriter((accepted: Accepted[], committed: () => void) => this.recordSent(accepted, committed), { oneByOneOnFailure: true });
    return (accepted) => records.add(accepted);
  }

  /**
   * Delivers a campaign email loaded with its batch (queuedEmails), which also told whether it
   * is suppressed, through the batch's writes; the batch checked that the project may send.
   * Campaign emails have no attachments.
   */
  async deliverQueued(email: QueuedEmail, writes: SendWrites): Promise<DeliveryOutcome> {
    if (email.suppressed) return this.markSuppressed(email);
    return this.send(email, await composeMessage(this.config, email, email.contact, []), writes);
  }

  /**
   * Marks a queued email FAILED with the reason and stores an `email.failed` event; mail events
   * about it that were waiting (SES accepted an earlier attempt) are applied.
   */
  async fail(email: WebhookSubject | string, reason: string): Promise<void> {
    const record = typeof email === 'string' ? await findEmail(this.dataSource.manager, email) : email;
    if (!record) return;
    await this.contacts.transaction(async (tx) => {
      if (!(await failQueuedEmail(tx.manager, record.id, reason))) return;
      await tx.record([this.event(record, 'email.failed', { reason })]);
      await emitEmailEvents(tx.manager, 'email.failed', [{ email: record, detail: { reason } }]);
      await this.mailEvents.applyBacklog(tx, [{ emailId: record.id, messageId: null }]);
    });
  }

  /**
   * Counts an attempt of a still-QUEUED email, hands the message to the transport and records
   * it SENT at once. An email no longer QUEUED (cancelled, or handled by another attempt) is
   * not sent; one refused for good is marked FAILED.
   */
  private async send(email: WebhookSubject, message: OutgoingMessage, writes: SendWrites): Promise<DeliveryOutcome> {
    if (!(await writes.claim(email.id))) return 'ALREADY_HANDLED';
    let messageId: string;
    try {
      ({ messageId } = await this.mailer.send(message));
    } catch (err) {
      if (err instanceof PermanentMailError) await this.fail(email, err.message);
      throw err;
    }
    await writes.record({ email, messageId });
    return 'SENT';
  }

  /** Counts an attempt of each email still QUEUED (and held under `sendClaim`, when given) among `emailIds`; answers, per id, whether it was. */
  private async claim(emailIds: string[], sendClaim?: string): Promise<boolean[]> {
    const claimed = await claimQueuedEmails(this.dataSource.manager, emailIds, sendClaim);
    return emailIds.map((id) => claimed.has(id));
  }

  /**
   * Marks accepted emails still QUEUED SENT (counted on their campaigns) with an `email.sent`
   * event each, and applies the mail events about them that arrived first, in one transaction;
   * answers, per email, whether it was marked. `committed` runs as soon as it committed.
   */
  private async recordSent(accepted: Accepted[], committed?: () => void): Promise<boolean[]> {
    return this.contacts.transaction(async (tx) => {
      if (committed) tx.afterCommit(committed);
      const marked = new Set(await markSent(tx.manager, accepted.map(({ email, messageId }) => ({ emailId: email.id, campaignId: email.campaignId, messageId }))));
      const sent = accepted.filter(({ email }) => marked.has(email.id));
      await tx.record(sent.map(({ email, messageId }) => this.event(email, 'email.sent', { messageId })));
      await emitEmailEvents(tx.manager, 'email.sent', sent.map(({ email, messageId }) => ({ email, detail: { messageId } })));
      await this.mailEvents.applyBacklog(tx, sent.map(({ email, messageId }) => ({ emailId: email.id, messageId })));
      return accepted.map(({ email }) => marked.has(email.id));
    });
  }

  /** Marks a still-QUEUED email SUPPRESSED with its `email.suppressed` webhook event, in one transaction. */
  private async markSuppressed(email: WebhookSubject): Promise<DeliveryOutcome> {
    await this.dataSource.transaction(async (manager) => {
      if (await suppressQueuedEmail(manager, email.id)) await emitEmailEvents(manager, 'email.suppressed', [{ email, detail: {} }]);
    });
    return 'SUPPRESSED';
  }

  private event(email: EventSubject, name: string, data: Record<string, unknown>) {
    return { projectId: email.projectId, contactId: email.contactId, name, source: 'SYSTEM' as const, data: { emailId: email.id, subject: email.subject, ...data } };
  }
}
