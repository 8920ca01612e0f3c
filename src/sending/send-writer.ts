import type { DataSource, EntityManager } from 'typeorm';
import { inPool } from '../automations/pool';
import { assertWithinEmailLimit } from '../billing/limits';
import { normalizeEmail, type ContactsService } from '../contacts/contacts-service';
import type { UpsertOutcome } from '../contacts/contacts-queries';
import type { DataPatch } from '../contacts/data-rules';
import type { Template } from '../entities/template';
import { commitWithEvents, type Committed, type EventTransaction } from '../events/event-store';
import { ApiError } from '../http/errors';
import { DispatchBehind } from '../events/dispatch-behind';
import { certainlyRolledBack, pooledTransactions, type Transactions } from '../db/pipelined-transaction';
import { GroupWriter } from '../db/group-writer';
import { isVerifiedSender, unverifiedSender } from '../domains/sender-check';
import { emitEmailEvents } from '../webhooks/email-webhooks';
import { storeContents } from './email-contents-queries';
import type { SendQueueBell } from './send-queue-bell';
import { insertEmails, suppressedAmong, type StoredEmail } from './send-queries';
import { refusalOfItem, type Recipient, type SendRequest } from './send-request';

/** The message every recipient of one request gets, before per-recipient rendering. */
export interface Message {
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

/** One send call to store: a request (`/v1/send`, the SMTP relay) or a batch, its messages checked. */
export interface SendJob {
  projectId: string;
  requests: SendRequest[];
  messages: Message[];
  /** A batch: a refusal names the request it came from. */
  batch: boolean;
  claim?: Claim;
}

/** What one request stored: its recipients' contacts and email records, in the order of `to`. */
export interface StoredRequest {
  contacts: UpsertOutcome[];
  emails: StoredEmail[];
}

/** How one job ended in its group: what it stored, or why it was refused alone. */
type JobOutcome = { stored: StoredRequest[] } | { refused: unknown };

/** The refusal of a send whose transaction's outcome is unknown (the connection was lost at its commit): retrying it may send twice. */
function outcomeUnknown(err: unknown): ApiError {
  return new ApiError(503, 'SERVICE_UNAVAILABLE', 'The database connection was lost while this send was committed: it may or may not have been stored', {
    details: { reason: (err as Error).message },
    suggestion: 'Send again with the same Idempotency-Key, if the send had one: a send that was stored then answers 409 instead of going out twice.',
  });
}

/** One request of a job, as stored together with others. */
interface Part {
  projectId: string;
  request: SendRequest;
  message: Message;
}

/** Jobs one transaction stores at most (a batch holds up to 1,000 recipients). */
const MAX_GROUP = 64;
/** Scheduled emails' delivery workflows started at once while a transaction is open. */
const START_CONCURRENCY = 32;

/** The items of `list` by the key `of` gives, in order of first appearance. */
function groupedBy<T>(list: T[], of: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of list) {
    const key = of(item);
    const group = groups.get(key) ?? [];
    groups.set(key, group);
    group.push(item);
  }
  return groups;
}

/**
 * Stores send calls, those that arrive while the previous transaction runs together in the next
 * one (group commit): every
 * recipient's contact upserted per project in one statement, each request's shared content and
 * every email record in one statement each, the project's emails cap checked over all of them.
 * An email to send now is committed QUEUED to the send queue of `taskQueue` (the send lanes
 * deliver it; the bell tells those of this process once it committed); a scheduled one
 * SCHEDULED, its delivery workflow `email/<emailId>` started by `startScheduled` before the
 * commit. A group the database refuses is stored again one call at a time, so that each call
 * commits or fails on its own; a batch that fails alone is stored once more request by request,
 * so that its refusal names the request.
 */
export class SendWriter {
  private readonly writer = new GroupWriter((jobs: SendJob[], committed: () => void) => this.write(jobs, committed), { oneByOneOnFailure: true, maxItems: MAX_GROUP });

  private readonly transactions: Transactions;
  private readonly dispatches: DispatchBehind;

  constructor(
    dataSource: DataSource,
    private readonly contacts: ContactsService,
    private readonly taskQueue: string,
    private readonly bell: SendQueueBell,
    private readonly startScheduled: (email: StoredEmail) => Promise<void>,
  ) {
    this.transactions = pooledTransactions(dataSource);
    this.dispatches = new DispatchBehind(contacts);
  }

  /** Stores a send call; answers per request what it stored (none when its claim answered false). */
  async store(job: SendJob): Promise<StoredRequest[]> {
    let outcome: JobOutcome;
    try {
      outcome = await this.writer.add(job);
    } catch (err) {
      if (!job.batch || job.requests.length === 1) throw err;
      [outcome] = await this.write([job], () => undefined, true);
    }
    if ('refused' in outcome) throw outcome.refused;
    return outcome.stored;
  }

  /** One transaction for the jobs (request by request, each refusal naming its request, when `itemByItem`). */
  private async write(jobs: SendJob[], committed: () => void, itemByItem = false): Promise<JobOutcome[]> {
    await this.dispatches.room();
    let workFailed = false;
    let stored: Committed<{ outcomes: JobOutcome[]; queued: boolean }>;
    try {
      stored = await commitWithEvents(this.transactions, (tx) =>
        this.storeJobs(tx, jobs, itemByItem).catch((err: unknown) => {
          workFailed = true;
          throw err;
        }),
      );
    } catch (err) {
      // A group whose commit may have gone through is not stored again (its emails would be sent twice).
      if (workFailed || certainlyRolledBack(err) || jobs.length === 1) throw err;
      return jobs.map(() => ({ refused: outcomeUnknown(err) }));
    }
    const { value, dispatch } = stored;
    committed();
    if (value.queued) this.bell.ring();
    this.dispatches.add(dispatch);
    return value.outcomes;
  }

  /**
   * Stores the jobs in the caller's transaction; answers each one's outcome (refused when a sender
   * domain is not verified for its project: checked first, before its claim), and whether any
   * email is queued to send now.
   */
  private async storeJobs(tx: EventTransaction, jobs: SendJob[], itemByItem: boolean): Promise<{ outcomes: JobOutcome[]; queued: boolean }> {
    const refusals = await this.unverifiedSenders(tx.manager, jobs);
    const live: SendJob[] = [];
    for (const job of jobs) if (!refusals.has(job) && (!job.claim || (await job.claim(tx.manager)))) live.push(job);
    const parts = live.flatMap((job) => job.requests.map((request, i) => ({ projectId: job.projectId, request, message: job.messages[i] })));
    const stored: StoredRequest[] = [];
    if (itemByItem) {
      for (const [index, part] of parts.entries()) stored.push(...(await this.storeParts(tx, [part]).catch((err: unknown) => Promise.reject(refusalOfItem(err, index)))));
    } else {
      stored.push(...(await this.storeParts(tx, parts)));
    }
    const emails = stored.flatMap((request) => request.emails);
    const suppressed = emails.filter((email) => email.status === 'SUPPRESSED');
    await emitEmailEvents(tx.manager, 'email.suppressed', suppressed.map((email) => ({ email, detail: {} })));
    const counted = emails.filter((email) => email.status !== 'SUPPRESSED');
    // Before the workflows start: waiting for the cap's lock must never stretch the time a
    // started workflow waits for its record to commit.
    for (const [projectId, ofProject] of groupedBy(counted, (email) => email.projectId)) await assertWithinEmailLimit(tx.manager, projectId, ofProject.length);
    const scheduled = counted.filter((email) => email.status === 'SCHEDULED');
    await inPool(scheduled, START_CONCURRENCY, this.startScheduled);
    let next = 0;
    const outcomes = jobs.map((job): JobOutcome => {
      const refused = refusals.get(job);
      if (refused) return { refused };
      return { stored: live.includes(job) ? job.requests.map(() => stored[next++]) : [] };
    });
    return { outcomes, queued: counted.length > scheduled.length };
  }

  /**
   * The refusal of each job with a request whose sender domain is neither a verified domain of
   * its project nor a subdomain of one (a batch's names its first such request): one statement
   * per project and sender among the jobs.
   */
  private async unverifiedSenders(manager: EntityManager, jobs: SendJob[]): Promise<Map<SendJob, unknown>> {
    const verified = new Map<string, boolean>();
    const refusals = new Map<SendJob, unknown>();
    for (const job of jobs) {
      for (const [index, message] of job.messages.entries()) {
        const key = `${job.projectId} ${message.from.email}`;
        if (!verified.has(key)) verified.set(key, await isVerifiedSender(manager, job.projectId, message.from.email));
        if (verified.get(key)) continue;
        const refusal = unverifiedSender(message.from.email);
        refusals.set(job, job.batch ? refusalOfItem(refusal, index) : refusal);
        break;
      }
    }
    return refusals;
  }

  /**
   * Upserts the parts' contacts (one statement per project) and stores their shared contents and
   * an email record per recipient: QUEUED and due now, SCHEDULED when the request has a time, or
   * SUPPRESSED for a suppressed address.
   */
  private async storeParts(tx: EventTransaction, parts: Part[]): Promise<StoredRequest[]> {
    const byProject = groupedBy(parts, (part) => part.projectId);
    const contactsOf = new Map<Part, UpsertOutcome[]>();
    for (const [projectId, ofProject] of byProject) {
      for (const part of ofProject) contactsOf.set(part, []);
      // In address order (a stable sort keeps each address's requests in theirs), so that
      // transactions upserting the same contacts at once lock them in one order and never deadlock.
      const recipients = ofProject
        .flatMap((part) => part.request.to.map((recipient, i) => ({ part, i, key: normalizeEmail(recipient.email), input: { email: recipient.email, patch: part.message.patch, subscribed: part.request.subscribed } })))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const outcomes = await this.contacts.upsertMany(tx, projectId, recipients.map(({ input }) => input), false);
      recipients.forEach(({ part, i }, n) => (contactsOf.get(part)![i] = outcomes[n]));
    }
    const contentIds = await storeContents(
      tx.manager,
      parts.map(({ projectId, request, message }) => ({
        projectId,
        parts: { body: message.body, text: request.text, literal: request.literal, headers: request.headers, variables: message.patch.transient, attachments: request.attachments },
      })),
    );
    const suppressed = new Map<string, Set<string>>();
    for (const [projectId, ofProject] of byProject) {
      suppressed.set(projectId, await suppressedAmong(tx.manager, projectId, ofProject.flatMap((part) => contactsOf.get(part)!.map((contact) => contact.email))));
    }
    const now = new Date();
    const records = parts.flatMap((part, p) => {
      const { projectId, request, message } = part;
      const scheduledAt = request.scheduledAt ?? null;
      return request.to.map((recipient, i) => {
        const contact = contactsOf.get(part)![i];
        const isSuppressed = suppressed.get(projectId)!.has(contact.email);
        return {
          projectId,
          contactId: contact.id,
          templateId: message.templateId,
          source: 'SEND' as const,
          type: message.type,
          toEmail: contact.email,
          toName: recipient.name ?? null,
          from: message.from.email,
          fromName: message.from.name ?? null,
          replyTo: message.replyTo,
          subject: message.subject,
          body: null,
          contentId: contentIds[p],
          headers: {},
          variables: {},
          status: isSuppressed ? ('SUPPRESSED' as const) : scheduledAt ? ('SCHEDULED' as const) : ('QUEUED' as const),
          attempts: 0,
          scheduledAt,
          dueAt: isSuppressed || scheduledAt ? null : now,
          sendQueue: this.taskQueue,
        };
      });
    });
    const emails = await insertEmails(tx.manager, records);
    let next = 0;
    return parts.map((part) => ({ contacts: contactsOf.get(part)!, emails: part.request.to.map(() => emails[next++]) }));
  }
}
