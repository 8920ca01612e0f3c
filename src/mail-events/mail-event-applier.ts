import type { ContactsService } from '../contacts/contacts-service';
import type { Email } from '../entities/email';
import type { EventTransaction } from '../events/event-store';
import { logger } from '../logger';
import type { ReputationService } from '../reputation/reputation-service';
import { applyMailEvent, type EmailChange } from './apply-mail-event';
import { holdRecordingLock, keepInBacklog, lockEmailOf, takeFromBacklog, type RecordedEmail } from './mail-event-queries';
import { parseSesEvent, type MailEvent } from './ses-event';

/** Mail events that count against a project's reputation when they first happen to an email. */
const REPUTATION_EVENTS = new Set(['Bounce', 'Complaint']);

/** A notification to apply or keep: its SNS MessageId and SES record, as received and read. */
export interface ReceivedEvent {
  notificationId: string;
  record: string;
  event: MailEvent;
  /** When it was first received, for one that waited in the backlog. */
  receivedAt?: Date;
}

/**
 * Applies mail events to their emails, inside the caller's transaction. An event whose email's
 * send is not recorded yet (no such email, or it is still QUEUED) is kept in the backlog and
 * applied in the transaction that records the send (`applyBacklog`), so the order in which
 * SNS and Herald's own writes arrive does not matter. A permanent bounce or complaint applied
 * either way has the project's reputation checked once it commits (when a ReputationService is given).
 */
export class MailEventApplier {
  constructor(
    private readonly contacts: ContactsService,
    private readonly reputation?: ReputationService,
  ) {}

  /** Applies a notification just received; undefined when it was kept in the backlog. */
  async receive(tx: EventTransaction, received: ReceivedEvent): Promise<EmailChange | undefined> {
    let email = await lockEmailOf(tx.manager, received.event);
    if (!email && !received.event.emailId) {
      // Only a message id to go by: wait for sends being recorded, whose message ids are not visible yet.
      await holdRecordingLock(tx.manager);
      email = await lockEmailOf(tx.manager, received.event);
    }
    const change = await this.applyOrKeep(tx, email, received);
    this.checkReputationAfter(tx, [change]);
    return change;
  }

  /** Applies the backlog's events of emails whose send was just recorded, in the transaction that recorded it. */
  async applyBacklog(tx: EventTransaction, recorded: RecordedEmail[]): Promise<void> {
    const changes: (EmailChange | undefined)[] = [];
    for (const entry of await takeFromBacklog(tx.manager, recorded)) {
      const event = parseSesEvent(entry.record);
      const change = await this.applyOrKeep(tx, await lockEmailOf(tx.manager, event), { ...entry, event });
      if (change) logger.info({ notificationId: entry.notificationId, change }, 'applied a mail event that arrived before its send was recorded');
      changes.push(change);
    }
    this.checkReputationAfter(tx, changes);
  }

  private async applyOrKeep(tx: EventTransaction, email: Email | null, received: ReceivedEvent): Promise<EmailChange | undefined> {
    const { notificationId, event, record, receivedAt } = received;
    if (!email || email.status === 'QUEUED') {
      await keepInBacklog(tx.manager, notificationId, event, record, receivedAt);
      return undefined;
    }
    return applyMailEvent(tx, this.contacts, email, event, notificationId);
  }

  /** Has each project with a bounce or complaint that counts (it set `bounced_at` or `complained_at`) checked once the transaction commits. */
  private checkReputationAfter(tx: EventTransaction, changes: (EmailChange | undefined)[]): void {
    const reputation = this.reputation;
    if (!reputation) return;
    const counted = changes.filter((change) => change?.firstOccurrence && REPUTATION_EVENTS.has(change.eventType));
    for (const projectId of new Set(counted.map((change) => change!.projectId))) tx.afterCommit(() => checkReputation(reputation, projectId));
  }
}

/**
 * Checks the project's rates, after the commit so that they include the events applied. A
 * failed check is logged, never failing the caller: the events are applied for good.
 */
async function checkReputation(reputation: ReputationService, projectId: string): Promise<void> {
  try {
    await reputation.evaluate(projectId);
  } catch (err) {
    logger.error({ err, projectId }, 'could not check the project reputation after a mail event');
  }
}
