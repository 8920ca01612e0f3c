import type { DataSource, EntityManager } from 'typeorm';
import type { SMTPServerEnvelope } from 'smtp-server';
import { ApiError } from '../http/errors';
import { claimKey, recordKeyStatus } from '../http/idempotency-queries';
import { isValidIdempotencyKey } from '../http/middleware/idempotency';
import { projectBucket, type WindowLimiter } from '../rate-limits/window-limiter';
import type { SendService, SentRecipient } from '../sending/send-service';
import { relayedMessage } from './relay-message';
import type { RelayProject } from './relay-auth';
import { replyForSendError, smtpReply, tryLater } from './relay-replies';

/** What the relay answers for an accepted message: the 250 text. */
function acceptedText(sent: SentRecipient[]): string {
  const suppressed = sent.filter((recipient) => recipient.status === 'SUPPRESSED').length;
  const ids = sent.map((recipient) => recipient.email).join(' ');
  return `OK: ${sent.length - suppressed} queued${suppressed ? `, ${suppressed} suppressed (not sent)` : ''}; emails ${ids}`;
}

/**
 * Hands a received message to the `/v1/send` path for a project: the project's rate limit
 * (the bucket `/v1/send` counts in, counted at MAIL FROM by `admit`), the same validation and the same SendService. An
 * `Idempotency-Key` header is claimed in the project's idempotency store inside the send's
 * own transaction, so a message whose send did not commit (refused, or the process killed)
 * keeps its key free for the client's retry, and a key used before is accepted without
 * sending again.
 */
export class RelaySending {
  constructor(
    private readonly dataSource: DataSource,
    private readonly send: SendService,
    private readonly limiter: WindowLimiter,
    private readonly idempotencyTtlHours: number,
  ) {}

  /**
   * Counts one message in the project's rate limit (the bucket `/v1/send` counts in) at its
   * MAIL FROM, before any of it is read; past the limit, throws 451.
   */
  async admit(project: RelayProject): Promise<void> {
    const counted = await this.limiter.count(projectBucket(project.id));
    if (counted.limited) throw tryLater(`Rate limit of ${counted.limit} requests per minute exceeded; try again in ${counted.reset} seconds`);
  }

  /** Sends one message the project was admitted for; answers the 250 text, or throws the SMTP reply that refuses it. */
  async accept(project: RelayProject, raw: Buffer, envelope: SMTPServerEnvelope): Promise<string> {
    let sent: SentRecipient[] | undefined;
    try {
      const { request, idempotencyKey } = await relayedMessage(raw, envelope);
      if (idempotencyKey !== undefined && !isValidIdempotencyKey(idempotencyKey)) {
        throw smtpReply(554, 'Message refused: Idempotency-Key must be 1 to 255 printable ASCII characters');
      }
      const claim = idempotencyKey === undefined ? undefined : (manager: EntityManager) => this.claim(manager, project.id, idempotencyKey);
      sent = await this.send.send(project.id, request, claim);
    } catch (err) {
      // A refusal of the send path becomes its SMTP reply; anything else is the server's to log and answer.
      throw err instanceof ApiError ? replyForSendError(err) : err;
    }
    return sent.length === 0 ? 'OK: a message with this Idempotency-Key was accepted before; not sent again' : acceptedText(sent);
  }

  /** Claims the key for this message in the send's transaction; false when a request already used it. */
  private async claim(manager: EntityManager, projectId: string, key: string): Promise<boolean> {
    if (!(await claimKey(manager, projectId, key, 'SMTP', 'smtp-relay', this.idempotencyTtlHours))) return false;
    await recordKeyStatus(manager, projectId, key, 250);
    return true;
  }
}
