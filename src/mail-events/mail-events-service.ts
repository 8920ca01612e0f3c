import type { ContactsService } from '../contacts/contacts-service';
import { ApiError, badRequest } from '../http/errors';
import { logger } from '../logger';
import type { ReputationService } from '../reputation/reputation-service';
import { applyMailEvent, type EmailChange } from './apply-mail-event';
import { parseSesEvent } from './ses-event';
import { isSnsUrl, type SnsMessage } from './sns-message';
import type { SnsSignatureVerifier } from './sns-signature';

/** What the webhook did with one SNS message. */
export type MailEventResult =
  | { outcome: 'applied'; change: EmailChange }
  | { outcome: 'duplicate' | 'unmatched' | 'confirmed' | 'ignored' };

/** Mail events that count against a project's reputation when they first happen to an email. */
const REPUTATION_EVENTS = new Set(['Bounce', 'Complaint']);

/** Confirms an SNS subscription by visiting its SubscribeURL. */
export type SubscriptionConfirmer = (subscribeUrl: string) => Promise<void>;

const CONFIRM_TIMEOUT_MS = 10_000;

/** The real confirmation: a GET to the SubscribeURL. */
export const confirmByGet: SubscriptionConfirmer = async (subscribeUrl) => {
  const response = await fetch(subscribeUrl, { redirect: 'error', signal: AbortSignal.timeout(CONFIRM_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`SNS answered ${response.status}`);
};

/**
 * Receives Amazon SNS messages carrying SES events: confirms the topic subscription, and
 * applies each notification once (by SNS MessageId) to the email it is about. After a
 * permanent bounce or a complaint, the project's reputation is checked (when a
 * ReputationService is given), which may suspend it.
 */
export class MailEventsService {
  constructor(
    private readonly contacts: ContactsService,
    private readonly verifier: SnsSignatureVerifier | undefined,
    private readonly confirm: SubscriptionConfirmer = confirmByGet,
    private readonly reputation?: ReputationService,
  ) {}

  /** Handles one SNS message; 403 when signatures are checked and this one's is not valid. */
  async receive(message: SnsMessage): Promise<MailEventResult> {
    if (this.verifier && !(await this.verifier.verify(message))) {
      throw new ApiError(403, 'INVALID_SIGNATURE', 'The SNS message signature is not valid');
    }
    switch (message.Type) {
      case 'SubscriptionConfirmation':
        return this.confirmSubscription(message);
      case 'UnsubscribeConfirmation':
        logger.warn({ topicArn: message.TopicArn }, 'the SNS topic unsubscribed the mail events webhook');
        return { outcome: 'ignored' };
      case 'Notification': {
        const result = await this.apply(message);
        if (result.outcome === 'applied') await this.checkReputation(result.change);
        return result;
      }
    }
  }

  /**
   * Checks the project's rates once a bounce or complaint that counts (it set `bounced_at`
   * or `complained_at`) has committed. A failed check is logged, never failing the
   * webhook: SNS would deliver the notification again, and it would then be a duplicate.
   */
  private async checkReputation(change: EmailChange): Promise<void> {
    if (!this.reputation || !change.firstOccurrence || !REPUTATION_EVENTS.has(change.eventType)) return;
    try {
      await this.reputation.evaluate(change.projectId);
    } catch (err) {
      logger.error({ err, projectId: change.projectId }, 'could not check the project reputation after a mail event');
    }
  }

  /** Confirms the subscription, but only by visiting an https URL on an Amazon SNS host. */
  private async confirmSubscription(message: SnsMessage): Promise<MailEventResult> {
    const subscribeUrl = message.SubscribeURL!;
    if (!isSnsUrl(subscribeUrl)) throw badRequest('SubscribeURL is not an https URL on an Amazon SNS host (sns.<region>.amazonaws.com)');
    try {
      await this.confirm(subscribeUrl);
    } catch (err) {
      logger.error({ err, topicArn: message.TopicArn }, 'could not confirm the SNS subscription');
      throw new ApiError(502, 'SUBSCRIPTION_CONFIRMATION_FAILED', 'The SNS subscription could not be confirmed');
    }
    logger.info({ topicArn: message.TopicArn }, 'confirmed the SNS subscription of the mail events webhook');
    return { outcome: 'confirmed' };
  }

  /**
   * Applies a notification in one transaction with its receipt: a notification delivered
   * again finds its receipt and changes nothing. Whatever else a mail event moves (such as
   * campaign counters) belongs in this transaction, driven by the returned change; only
   * the reputation check runs after the commit, so that its rates include this event.
   */
  private async apply(message: SnsMessage): Promise<MailEventResult> {
    const event = parseSesEvent(message.Message);
    return this.contacts.transaction(async (tx) => {
      const receipt: unknown[] = await tx.manager.query(
        'INSERT INTO mail_event_receipts (notification_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING notification_id',
        [message.MessageId],
      );
      if (receipt.length === 0) return { outcome: 'duplicate' };
      const change = await applyMailEvent(tx, this.contacts, event);
      return change ? { outcome: 'applied', change } : { outcome: 'unmatched' };
    });
  }
}
