import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { logger } from '../logger';
import { PermanentMailError } from '../mailer/types';
import { TemplateRenderError } from '../rendering/renderer';
import type { Delivery, SendWrites } from './delivery';
import { loadContents, partsOf, type EmailParts } from './email-contents-queries';
import type { SendQueueBell } from './send-queue-bell';
import { claimDueEmails, freeHeld, takeBackLane, type ClaimedEmail, type LanePass } from './send-queue-queries';

/** The send lanes of a task queue: `send-lane/<queue>/0` to `send-lane/<queue>/<SEND_LANES - 1>`, each a workflow that delivers the queue's emails. */
export const SEND_LANES = 4;

/** The most emails one claim takes. */
const CLAIM_SIZE = 256;
/** Sends one lane has with the transport at once. */
const LANE_CONCURRENCY = 64;
/** A claim is made again when fewer than this many claimed emails wait for a send. */
const LOW_WATER = LANE_CONCURRENCY;
/** How often a pass reports that it is alive, whatever it is doing (the activity's heartbeat timeout is 10 s). */
const HEARTBEAT_MS = 1_000;
/** The least time between two claims of a lane under load, so that a claim takes what several commits queued. */
const CLAIM_SPACING_MS = 20;
/** How long an idle lane waits for the bell before it looks at the queue again (emails committed by another process, retries falling due). */
const IDLE_POLL_MS = 100;
/** Transient failures after which an email is marked FAILED, retried 1, 2, 4 ... up to 300 seconds apart: about an hour in all. */
export const MAX_SEND_ATTEMPTS = 16;
const MAX_RETRY_DELAY_SECONDS = 300;

/** How long a lane's pass runs and how it reports that it is alive. */
export interface DrainOptions {
  /** When the pass stops claiming (epoch milliseconds); it then ends once its sends in flight end. */
  untilMs: number;
  /** Called every HEARTBEAT_MS while the pass runs (its sends in flight included), with the emails attempted so far. */
  heartbeat: (attempted: number) => void;
  /** Aborts when the pass was given up (another attempt may hold the lane): no further send starts. */
  signal?: AbortSignal;
}

/** The seconds a transiently failed email waits before its next attempt: 1, 2, 4 ... 300. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_SECONDS, 2 ** Math.max(0, attempts - 1));
}

/**
 * The send lanes' work: a pass claims due emails of the send queue for its lane under a token
 * of its own, renders and sends them LANE_CONCURRENCY at a time, each attempt counted just
 * before its send (only while the pass still holds the email) and each send recorded SENT as
 * soon as it returns, claims again before it runs dry, and waits for the bell (or IDLE_POLL_MS)
 * when the queue is empty. A pass begins by taking back what its lane still holds (claimed by a
 * pass that was cut off: due at once, and no longer sent by that pass should it still run) and
 * ends by freeing the emails it claimed and did not start. A transient failure frees its email
 * with a later due time; a permanent one marks it FAILED; so does the last of MAX_SEND_ATTEMPTS,
 * crashes mid-send included. It heartbeats every HEARTBEAT_MS throughout.
 */
export class SendLanes {
  /** The records of the sends of every lane of this process: those that come together share a transaction. */
  private readonly record: SendWrites['record'];

  constructor(
    private readonly dataSource: DataSource,
    private readonly delivery: Delivery,
    private readonly bell: SendQueueBell,
  ) {
    this.record = delivery.groupedRecords();
  }

  /** One pass of lane `lane` of task queue `queue` (see the class); answers the emails attempted. Throws when the queue cannot be claimed from, once the sends in flight ended. */
  async drain(queue: string, lane: number, options: DrainOptions): Promise<number> {
    const manager = this.dataSource.manager;
    const pass: LanePass = { queue, lane, token: randomUUID() };
    await takeBackLane(manager, pass);
    // Just before each send, its attempt is counted, if the pass still holds the email: a later pass may have taken it back.
    const writes: SendWrites = { claim: this.delivery.groupedClaims(pass.token), record: this.record };
    const waiting: { email: ClaimedEmail; parts: EmailParts }[] = [];
    let failure: unknown;
    let claimed = false;
    let attempted = 0;
    const stopped = () => failure !== undefined || options.signal?.aborted === true || Date.now() >= options.untilMs;
    const beat = setInterval(() => options.heartbeat(attempted), HEARTBEAT_MS);
    /** Wakes the senders waiting for claimed emails (or for the pass's end). */
    let wake = () => undefined as void;
    let more = new Promise<void>((resolve) => (wake = resolve));
    const announce = () => {
      wake();
      more = new Promise<void>((resolve) => (wake = resolve));
    };
    /** A claim, then another at once while claims come back full, else after CLAIM_SPACING_MS, or at the bell when the queue is empty. */
    const claimer = async () => {
      while (!stopped()) {
        if (waiting.length >= LOW_WATER) {
          await Promise.race([more, this.bell.wait(CLAIM_SPACING_MS)]);
          continue;
        }
        let emails: ClaimedEmail[];
        try {
          emails = await claimDueEmails(manager, pass, CLAIM_SIZE);
          const contents = await loadContents(manager, emails.flatMap((email) => (email.contentId ? [email.contentId] : [])));
          for (const email of emails) waiting.push({ email, parts: partsOf(email, contents) });
        } catch (err) {
          failure ??= err;
          break;
        }
        if (emails.length > 0) announce();
        if (emails.length === CLAIM_SIZE) continue;
        const pause = Math.max(0, Math.min(options.untilMs - Date.now(), emails.length > 0 ? CLAIM_SPACING_MS : IDLE_POLL_MS));
        // Under load another claim waits a little, so that it takes what several commits queued.
        if (emails.length > 0) await new Promise((resolve) => setTimeout(resolve, pause));
        else await this.bell.wait(pause);
      }
      claimed = true;
      announce();
    };
    const sender = async () => {
      for (;;) {
        const next = stopped() ? undefined : waiting.shift();
        if (next) {
          await this.attempt(pass, next.email, next.parts, writes);
          attempted += 1;
          if (waiting.length < LOW_WATER) announce();
        } else if (claimed || stopped()) {
          return;
        } else {
          await more;
        }
      }
    };
    try {
      await Promise.all([claimer(), ...Array.from({ length: LANE_CONCURRENCY }, sender)]);
    } finally {
      clearInterval(beat);
    }
    await freeHeld(manager, pass, waiting.map(({ email }) => email.id));
    if (failure !== undefined) throw failure;
    return attempted;
  }

  /** Delivers one claimed email; a failure is recorded on it (FAILED, or due again later), never thrown. */
  private async attempt(pass: LanePass, email: ClaimedEmail, parts: EmailParts, writes: SendWrites): Promise<void> {
    try {
      // Attempts cut off by crashes (the worker killed mid-send, again and again) count too.
      if (email.attempts >= MAX_SEND_ATTEMPTS) return await this.delivery.fail(email, `Gave up after ${MAX_SEND_ATTEMPTS} attempts`);
      await this.delivery.deliverLoaded(email, parts, writes);
    } catch (err) {
      await this.recordFailure(pass, email, err).catch((recordErr: unknown) =>
        // Still held by the lane: the next pass frees it and it is attempted again.
        logger.warn({ err: recordErr, emailId: email.id }, 'could not record a failed delivery attempt'),
      );
    }
  }

  /** FAILED for a permanent failure (already marked by the delivery) or the last attempt, else due again after its backoff. */
  private async recordFailure(pass: LanePass, email: ClaimedEmail, err: unknown): Promise<void> {
    if (err instanceof PermanentMailError) return;
    if (err instanceof TemplateRenderError) return this.delivery.fail(email, err.message);
    const attempts = email.attempts + 1;
    if (attempts >= MAX_SEND_ATTEMPTS) return this.delivery.fail(email, `Gave up after ${MAX_SEND_ATTEMPTS} attempts: ${(err as Error).message}`);
    logger.warn({ err, emailId: email.id, attempts }, 'delivery attempt failed; retrying later');
    await freeHeld(this.dataSource.manager, pass, [email.id], retryDelaySeconds(attempts));
  }
}
