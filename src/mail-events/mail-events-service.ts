import type { ContactsService } from '../contacts/contacts-service';
import { ApiError, badRequest } from '../http/errors';
import { logger } from '../logger';
import type { ReputationService } from '../reputation/reputation-service';
import type { EmailChange } from './apply-mail-event';
import { MailEventApplier } from './mail-event-applier';
import { recordReceipt } from './mail-event-queries';
import { parseSesEvent } from './ses-event';
import { isSnsUrl, type SnsMessage } from './sns-message';
import type { SnsSignatureVerifier } from './sns-signature';

/** What the webhook did with one SNS message. */
export type MailEventResult =
  | { outcome: 'applied'; change: EmailChange }
  | { outcome: 'duplicate' | 'kept' | 'confirmed' | 'ignored' };

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
 * applies each notification once (by SNS MessageId) to the email it is about, or keeps it
 * until that email's send is recorded (MailEventApplier). After a permanent bounce or a
 * complaint, the project's reputation is checked (when a ReputationService is given), which
 * may suspend it.
 */
export class MailEventsService {
  private readonly applier: MailEventApplier;

  constructor(
    private readonly contacts: ContactsService,
    private readonly verifier: SnsSignatureVerifier | undefined,
    private readonly confirm: SubscriptionConfirmer = confirmByGet,
    reputation?: ReputationService,
  ) {
    this.applier = new MailEventApplier(contacts, reputation);
  }

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
      case 'Notification':
        return this.apply(message);
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
   * Applies (or keeps) a notification in one transaction with its receipt: a notification
   * delivered again finds its receipt and changes nothing, also when the first copy is still
   * waiting in the backlog. Whatever else a mail event moves (such as campaign counters)
   * belongs in this transaction, driven by the change; only the reputation check runs after
   * the commit, so that its rates include this event.
   */
  private async apply(message: SnsMessage): Promise<MailEventResult> {
    const received = { notificationId: message.MessageId, record: message.Message, event: parseSesEvent(message.Message) };
    return this.contacts.transaction(async (tx) => {
      if (!(await recordReceipt(tx.manager, received.notificationId))) return { outcome: 'duplicate' };
      const change = await this.applier.receive(tx, received);
      return change ? { outcome: 'applied', change } : { outcome: 'kept' };
    });
  }
}
