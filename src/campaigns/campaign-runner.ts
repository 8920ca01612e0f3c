import type { DataSource, EntityManager } from 'typeorm';
import { describeLimit, formatted, lockedUsage } from '../billing/limits';
import type { Config } from '../config';
import type { Campaign } from '../entities/campaign';
import { PermanentMailError } from '../mailer/types';
import { TemplateRenderError } from '../rendering/renderer';
import type { Delivery } from '../sending/delivery';
import { audiencePage, contactsWithoutEmail, countAudience, queuedEmails, queueEmails, type QueuedEmail } from './audience-queries';
import { disabledReason } from '../reputation/reputation-queries';
import { campaignSentEvent } from '../webhooks/source-events';
import { emitWebhookEvents } from '../webhooks/webhook-events';
import { countSendingCampaigns, databaseNow, deliveryAttempts, finishCampaign, lockCampaign, startSending, stopCampaign } from './campaigns-queries';

/**
 * Contacts per batch when the project's send rate is not limited: enough that the workflow's
 * step between two batches and a batch's own queries are small beside its sends.
 */
export const MAX_BATCH_SIZE = 1000;
/**
 * Emails of one batch delivered at the same time; it bounds the sends in flight, so the
 * duplicates a crash may cause. Their database writes are grouped (Delivery.batchWrites), so a
 * batch needs about three connections however many there are, and the more sends there are at
 * once, the more each claim and record statement carries: a send mostly waits for its
 * group's transaction to commit, not for SES.
 */
export const DELIVERY_CONCURRENCY = 128;
/**
 * Pages one batch attempt queues and delivers at most when the project has no send rate: the
 * workflow's step between attempts is paid once per this many pages, and a retried attempt
 * goes through at most this many pages again (their emails sent are no longer QUEUED).
 */
export const PAGES_PER_BATCH = 10;
/** Attempts after which an email that keeps failing transiently is given up (as `email/<id>` gives up, after about an hour). */
const MAX_DELIVERY_ATTEMPTS = 16;

/** What sending needs to keep from its start: the batch size and the moment the audience was resolved. */
export interface SendingPlan {
  batchSize: number;
  /** ISO time; contacts created after it are not part of the audience. */
  audienceAsOf: string;
}

/** One batch to send: the page of the audience after `afterContactId`. */
export interface BatchRequest extends SendingPlan {
  campaignId: string;
  afterContactId: string | null;
}

/** A page of the audience queued, with its emails still QUEUED. */
interface QueuedPage extends PageCursor {
  emails: QueuedEmail[];
}

/** Where a queued page leaves the audience. */
interface PageCursor {
  projectId: string;
  /** Contacts in the page; fewer than the batch size means the audience is exhausted. */
  contacts: number;
  /** The page's last contact, null for an empty page. */
  lastContactId: string | null;
  /** Why the campaign stops after this page (suspended project, emails cap reached). */
  stopReason?: string;
}

/** What one batch did. */
export interface BatchResult {
  /** The campaign is no longer SENDING: it was cancelled (nothing was queued), or this batch stopped it (suspended project, emails cap reached). */
  stopped: boolean;
  /** Contacts in the page; fewer than the batch size means the audience is exhausted. */
  contacts: number;
  /** The cursor for the next batch (the page's last contact), null for an empty page. */
  lastContactId: string | null;
  /** Emails handed to the transport (sent or refused for good). */
  attempted: number;
  /** The least time this batch should take to keep the project under its send rate (0: unlimited). */
  minDurationMs: number;
}

/**
 * The worker side of a campaign: starts sending (audience count), queues and delivers it
 * batch by batch exactly once per recipient, and ends it. Used by activities/campaigns.ts.
 */
export class CampaignRunner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly delivery: Delivery,
    private readonly config: Pick<Config, 'sendRatePerSecond'>,
  ) {}

  /** Moves a SCHEDULED campaign to SENDING and counts its audience; undefined when it is no longer to be sent. */
  async begin(campaignId: string): Promise<SendingPlan | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const campaign = await lockCampaign(manager, campaignId, 'pessimistic_write');
      if (!campaign || (campaign.status !== 'SCHEDULED' && campaign.status !== 'SENDING')) return undefined;
      const now = await databaseNow(manager);
      const totalRecipients = await countAudience(manager, campaign, now);
      await startSending(manager, campaignId, totalRecipients);
      return { batchSize: this.batchSize(), audienceAsOf: now.toISOString() };
    });
  }

  /**
   * Queues the next page of the audience and delivers its emails still QUEUED, then, without a
   * send rate, the pages after it, up to PAGES_PER_BATCH: each page is queued while the one
   * before it is being sent, so the sends never wait for a page. A suspended project or the
   * emails cap stops the campaign after its page (see queuePage); a cancel stops the pages.
   * The result describes the last page queued, the cursor the workflow goes on from; a retry
   * of the attempt begins again at the request's page, and what it queued is still QUEUED.
   */
  async sendBatch(request: BatchRequest, handled: () => void, signal?: AbortSignal): Promise<BatchResult> {
    const page = await this.queuePage(request, request.afterContactId);
    if (!page) return { stopped: true, contacts: 0, lastContactId: null, attempted: 0, minDurationMs: 0 };
    // A page's emails are held only until its last one is taken; `last` is the cursor without them.
    let { emails: firstEmails, ...last }: { emails: QueuedEmail[] | undefined } & PageCursor = page;
    page.emails = [];
    let cancelled = false;
    let pages = 1;
    const pipelined = !this.config.sendRatePerSecond;
    const nextPage = async (): Promise<QueuedEmail[] | undefined> => {
      if (firstEmails) {
        const emails = firstEmails;
        firstEmails = undefined;
        return emails;
      }
      if (!pipelined || cancelled || signal?.aborted || last.stopReason || last.contacts < request.batchSize || pages >= PAGES_PER_BATCH) return undefined;
      pages += 1;
      const next = await this.queuePage(request, last.lastContactId);
      if (!next) {
        cancelled = true;
        return undefined;
      }
      const { emails, ...cursor } = next;
      last = cursor;
      return emails;
    };
    const attempted = await this.deliverAll(nextPage, handled, signal);
    if (cancelled) return { stopped: true, contacts: last.contacts, lastContactId: last.lastContactId, attempted, minDurationMs: 0 };
    if (last.stopReason) {
      await this.stop(request.campaignId, last.stopReason);
      return { stopped: true, contacts: last.contacts, lastContactId: last.lastContactId, attempted, minDurationMs: 0 };
    }
    return {
      stopped: false,
      contacts: last.contacts,
      lastContactId: last.lastContactId,
      attempted,
      minDurationMs: await this.minDurationMs(last.projectId, attempted),
    };
  }

  /**
   * Queues the page of the audience after `afterContactId` (only while the campaign is
   * SENDING, checked under a lock that cancelling waits for) and loads the page's emails still
   * QUEUED, in one transaction, with what composing them needs; undefined when the campaign is
   * no longer SENDING. A suspended project (checked there, once per page) or the project's
   * emails cap gives the reason the campaign stops: with a cap, only as many of the page are
   * queued as the period has emails left (under the cap's lock).
   */
  private async queuePage(request: BatchRequest, afterContactId: string | null): Promise<QueuedPage | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const campaign = await lockCampaign(manager, request.campaignId, 'pessimistic_read');
      if (!campaign || campaign.status !== 'SENDING') return undefined;
      const suspended = await disabledReason(manager, campaign.projectId);
      if (suspended !== undefined) {
        return { projectId: campaign.projectId, contacts: 0, lastContactId: null, emails: [], stopReason: `Stopped: the project is suspended (${suspended})` };
      }
      const page = await audiencePage(manager, campaign, new Date(request.audienceAsOf), afterContactId, request.batchSize);
      const lastContactId = page.length > 0 ? page[page.length - 1] : null;
      const allowed = await this.withinEmailLimit(manager, campaign, page);
      await queueEmails(manager, campaign, allowed.contactIds);
      // The last page (shorter than a batch) also takes the queued emails beyond it: those of
      // contacts who left the audience (suppressed meanwhile) after an earlier attempt queued them.
      const emails = await queuedEmails(manager, campaign, afterContactId, page.length < request.batchSize ? null : lastContactId);
      return { projectId: campaign.projectId, contacts: page.length, lastContactId, emails, stopReason: allowed.stopReason };
    });
  }

  /**
   * The contacts of the page to queue under the project's emails cap (whose lock it takes):
   * those without the campaign's email yet, as many as the period has left. When some are
   * left out, the reason the campaign stops. A retried batch finds its earlier emails queued
   * and counted, and adds nobody twice.
   */
  private async withinEmailLimit(manager: EntityManager, campaign: Campaign, page: string[]): Promise<{ contactIds: string[]; stopReason?: string }> {
    const usage = await lockedUsage(manager, campaign.projectId, 'emails');
    if (!usage) return { contactIds: page };
    const fresh = await contactsWithoutEmail(manager, campaign.id, page);
    if (fresh.length <= usage.remaining) return { contactIds: fresh };
    const contactIds = fresh.slice(0, usage.remaining);
    const used = formatted(usage.used + contactIds.length);
    return { contactIds, stopReason: `Stopped: the project reached its billing limit of ${describeLimit(usage)} (${used} used)` };
  }

  /** Marks the campaign SENT unless it was cancelled meanwhile, with its `campaign.sent` webhook event. */
  async finish(campaignId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const finished = await finishCampaign(manager, campaignId);
      if (finished) await emitWebhookEvents(manager, finished.projectId, [campaignSentEvent(finished)]);
    });
  }

  /** Ends an active campaign as CANCELLED with the reason (an operator's cancel, or a failure). */
  async stop(campaignId: string, reason: string): Promise<void> {
    await this.dataSource.transaction((manager) => stopCampaign(manager, campaignId, reason));
  }

  /** About one batch a second under a send rate, so that a batch is never a long burst. */
  private batchSize(): number {
    const rate = this.config.sendRatePerSecond;
    return rate ? Math.min(MAX_BATCH_SIZE, Math.max(1, Math.ceil(rate))) : MAX_BATCH_SIZE;
  }

  /**
   * Delivers the batch's emails DELIVERY_CONCURRENCY at a time, each recorded as soon as its
   * send returns, page after page as `more` answers them (the next page is asked for as soon
   * as the previous one is handed over, so it loads while that one is sent; undefined: no
   * more). An email that fails for good (rejected, not renderable, or failing transiently
   * attempt after attempt) is recorded FAILED and the rest go on; another transient failure,
   * or a page that cannot be loaded, stops the batch once the deliveries in flight end, and is
   * thrown for Temporal to retry it: the retry delivers only the emails still QUEUED. After a
   * cancel, the rest are SKIPPED and none of them goes out. Once `signal` aborts (the attempt
   * was given up: another may be delivering the same emails), no further send starts and its
   * reason is thrown. `handled` is called as each email's attempt ends, however it ended.
   */
  private async deliverAll(more: () => Promise<QueuedEmail[] | undefined>, handled: () => void, signal?: AbortSignal): Promise<number> {
    let page: QueuedEmail[] = [];
    let next = 0;
    let attempted = 0;
    let transient: unknown;
    const ask = () =>
      more().catch((err: unknown) => {
        transient ??= err;
        return undefined;
      });
    let upcoming: Promise<QueuedEmail[] | undefined> | undefined = ask();
    const writes = this.delivery.batchWrites();
    /** The next email to deliver; undefined once there is none or the batch stops. */
    const take = async (): Promise<QueuedEmail | undefined> => {
      while (transient === undefined && !signal?.aborted) {
        if (next < page.length) return page[next++];
        const loading = upcoming;
        if (!loading) return undefined;
        const emails = await loading;
        // The first lane back hands the page over and asks for the one after it.
        if (upcoming === loading) {
          [page, next] = [emails ?? [], 0];
          upcoming = emails ? ask() : undefined;
        }
      }
      return undefined;
    };
    const lane = async () => {
      for (let email = await take(); email; email = await take()) {
        try {
          if ((await this.delivery.deliverQueued(email, writes)) === 'SENT') attempted += 1;
        } catch (err) {
          if (err instanceof PermanentMailError) attempted += 1;
          else if (err instanceof TemplateRenderError) await this.delivery.fail(email, err.message);
          else if (!(await this.gaveUp(email, err))) transient ??= err;
        } finally {
          handled();
        }
      }
    };
    await Promise.all(Array.from({ length: DELIVERY_CONCURRENCY }, lane));
    // A page still loading is waited for, so that no transaction outlives the attempt.
    await upcoming;
    signal?.throwIfAborted();
    if (transient !== undefined) throw transient;
    return attempted;
  }

  /** Records an email FAILED once its transient failures used up its attempts; false while it has some left. */
  private async gaveUp(email: QueuedEmail, err: unknown): Promise<boolean> {
    if ((await deliveryAttempts(this.dataSource.manager, email.id)) < MAX_DELIVERY_ATTEMPTS) return false;
    await this.delivery.fail(email, `Gave up after ${MAX_DELIVERY_ATTEMPTS} attempts: ${(err as Error).message}`);
    return true;
  }

  /** The project's send rate, shared by its campaigns sending now, turned into a least duration for this batch. */
  private async minDurationMs(projectId: string, attempted: number): Promise<number> {
    const rate = this.config.sendRatePerSecond;
    if (!rate || attempted === 0) return 0;
    const sharing = Math.max(1, await countSendingCampaigns(this.dataSource.manager, projectId));
    return Math.ceil((attempted * sharing * 1000) / rate);
  }
}
