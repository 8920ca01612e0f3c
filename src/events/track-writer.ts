import { normalizeEmail, type ContactsService } from '../contacts/contacts-service';
import { parseDataPatch } from '../contacts/data-rules';
import type { EventRecord } from '../entities/event-record';
import { logger } from '../logger';
import { GroupWriter } from '../db/group-writer';
import { certainlyRolledBack } from '../db/pipelined-transaction';
import { DISPATCH_LEASE_RENEWAL_MS } from './dispatches-queries';
import { holdDispatch, type EventTransaction, type HeldDispatch, type PendingDispatch } from './event-store';

/** A tracked event: the contact to upsert and the event to store on it. */
export interface TrackInput {
  email: string;
  event: string;
  data?: Record<string, unknown>;
  subscribed?: boolean;
}

/** What `POST /v1/track` answers: the contact, the stored event and when it was stored. */
export interface Tracked {
  contact: string;
  event: string;
  timestamp: Date;
}

/** The most tracked events one transaction stores. */
const MAX_GROUP = 250;
/**
 * The most answered events whose delivery has not ended that the process keeps in memory: past
 * it, a committed group is held by its dispatch rows' ids alone and its events read back when
 * its turn to be delivered comes.
 */
const MAX_UNDELIVERED = 2000;
/**
 * The most answered events whose delivery has not ended, in memory or held by id: past it the
 * next group waits for a delivery to end, so requests wait for their answers instead of the
 * backlog growing without end when deliveries fall behind the commits for long.
 */
const MAX_BACKLOG = 100_000;
/**
 * The least time between the starts of two deliveries. A delivery costs its subscribers a few
 * statements whatever its size (the trigger check, each tracked segment's), so under load the
 * groups committed over this time are delivered together; a lone event is delivered at once.
 */
const DELIVERY_SPACING_MS = 50;

/** Renewals without a delivery's end after which a process stops keeping the worker off its rows. */
const STALLED_RENEWALS = 12;

/** How many answered events a TrackWriter keeps in memory, and holds in all, ahead of their delivery. */
export interface TrackWriterLimits {
  maxUndelivered?: number;
  maxBacklog?: number;
  /** How often the retry time of the dispatch rows it holds is pushed back (DISPATCH_LEASE_RENEWAL_MS). */
  renewalMs?: number;
}

/** A committed group waiting for its delivery: its dispatch in memory, or held by its dispatch rows' ids. */
type QueuedDelivery = { events: number } & ({ dispatch: PendingDispatch } | { held: HeldDispatch });

interface PendingTrack {
  projectId: string;
  input: TrackInput;
  /** The project and the normalised email: one group holds at most one request per contact. */
  contactKey: string;
  resolve: (tracked: Tracked) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of tracked events. Requests that arrive while a group transaction runs are
 * stored together by the next one (one contact upsert, one event insert and one dispatch row
 * for the whole group), which starts as soon as the running one commits. Each request is
 * answered once its group committed: the event is stored, and its dispatch row makes sure that
 * workflow triggers, waiting executions and tracked segments see it even if the process dies
 * now. Committed groups are then delivered to those subscribers in commit order, those
 * committed while a delivery runs or within DELIVERY_SPACING_MS of its start together, and their
 * dispatch rows removed; a delivery that fails or never happens is repeated by the worker
 * (`event-redelivery`).
 *
 * Deliveries may fall behind the commits (a burst of events that each start a workflow
 * execution goes at the pace of the starts). The answers do not wait for them: past
 * `maxUndelivered` answered events waiting for their delivery, a committed group is held by its
 * dispatch rows' ids, its events read back from Postgres when its turn comes, so the process's
 * memory stays bounded while the backlog lives in Postgres. While the process holds dispatch
 * rows it pushes back their retry time, and takes each back under its row lock, so that the
 * worker does not deliver them beside it (and out of order); if the process dies, or its
 * deliveries stall, the worker delivers them once that time passes. Past `maxBacklog` answered
 * events waiting, no further group is written until a delivery ends.
 *
 * A group holds at most one request per contact; a later request for a contact already in the
 * group waits for a later group, so one contact's requests are applied one after the other in
 * arrival order (data patches, subscription flips and their events, event order), exactly as
 * separate transactions would. When the group's work fails (a billing or data-key cap, a bad
 * value), or Postgres refuses its last insert or its commit with an error that rolled it back,
 * nothing of it was committed: its requests are then written one by one, so each gets its own
 * answer. Any other failure of the commit is every member's answer, since whether it committed
 * is unknown and writing again could store an event twice.
 */
export class TrackWriter {
  private pending: PendingTrack[] = [];
  private writing = false;
  /** Answered events handed to `deliveries` whose delivery has not ended. */
  private inDelivery = 0;
  /** Committed groups held by their dispatch rows' ids, in commit order, and their events in all. */
  private held: { held: HeldDispatch; events: number }[] = [];
  private heldEvents = 0;
  /** Dispatch rows the process still has to deliver, whose retry time it pushes back. */
  private readonly leased = new Set<string>();
  private renewal: NodeJS.Timeout | undefined;
  private renewing = false;
  /** When a delivery last ended (or the first group was queued while none ran): the renewal stops when deliveries stall. */
  private lastProgress = performance.now();
  /** How to wake the writer waiting for a delivery to end. */
  private delivered: (() => void) | undefined;
  /** Committed groups' dispatches: those committed while one is delivered are delivered together next. */
  private readonly deliveries: GroupWriter<QueuedDelivery, undefined>;
  private readonly maxUndelivered: number;
  private readonly maxBacklog: number;
  private readonly renewalMs: number;

  constructor(
    private readonly contacts: ContactsService,
    limits: TrackWriterLimits = {},
  ) {
    this.maxUndelivered = Math.max(limits.maxUndelivered ?? MAX_UNDELIVERED, 1);
    this.maxBacklog = Math.max(limits.maxBacklog ?? MAX_BACKLOG, this.maxUndelivered);
    this.renewalMs = limits.renewalMs ?? DISPATCH_LEASE_RENEWAL_MS;
    this.deliveries = new GroupWriter(async (queued) => {
      const delivered = await this.dispatchesOf(queued)
        .then(async (dispatches) => ((await contacts.deliver(dispatches)) ? dispatches : undefined))
        .catch((err: unknown) => {
          logger.error({ err }, 'tracked events committed but not dispatched; the worker delivers them again');
          return undefined;
        });
      // Removed beside the next delivery (completeDelivered groups the deletes and logs its own failure).
      if (delivered) void contacts.completeDelivered(delivered);
      return queued.map(() => undefined);
    }, { spacingMs: DELIVERY_SPACING_MS });
  }

  /** Stores one tracked event with its contact upsert; answers once it committed (its delivery follows). */
  track(projectId: string, input: TrackInput): Promise<Tracked> {
    return new Promise((resolve, reject) => {
      this.pending.push({ projectId, input, contactKey: `${projectId}\u0000${normalizeEmail(input.email)}`, resolve, reject });
      if (!this.writing) void this.writeGroups();
    });
  }

  /** Writes groups, one transaction at a time, until no request waits. */
  private async writeGroups(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      while (this.inDelivery + this.heldEvents >= this.maxBacklog) await new Promise<void>((resolve) => (this.delivered = resolve));
      await this.write(this.nextGroup());
    }
    this.writing = false;
  }

  /**
   * Queues a committed group's delivery: in memory while fewer than `maxUndelivered` answered
   * events wait and none is held, else held by its dispatch rows' ids behind those held before.
   */
  private queue(dispatch: PendingDispatch, events: number): void {
    this.lease(dispatch.queued);
    if (this.held.length === 0 && this.inDelivery < this.maxUndelivered) {
      this.deliver({ events, dispatch });
      return;
    }
    this.held.push({ held: holdDispatch(dispatch), events });
    this.heldEvents += events;
    this.feed();
  }

  /** Hands held groups to the deliveries, in order, while fewer than `maxUndelivered` answered events are there. */
  private feed(): void {
    while (this.held.length > 0 && this.inDelivery < this.maxUndelivered) {
      const queued = this.held.shift()!;
      this.heldEvents -= queued.events;
      this.deliver(queued);
    }
  }

  /** Adds a group to the deliveries; once its delivery ended, its rows are released and held groups fed in. */
  private deliver(queued: QueuedDelivery): void {
    if (this.inDelivery === 0) this.lastProgress = performance.now();
    this.inDelivery += queued.events;
    void this.deliveries.add(queued).finally(() => {
      this.lastProgress = performance.now();
      this.inDelivery -= queued.events;
      for (const id of ('held' in queued ? queued.held : queued.dispatch).queued) this.leased.delete(id);
      this.feed();
      const wake = this.delivered;
      this.delivered = undefined;
      wake?.();
    });
  }

  /** The dispatches of a delivery's groups, in order, those held by id read back (rows the worker claimed are its own). */
  private async dispatchesOf(queued: QueuedDelivery[]): Promise<PendingDispatch[]> {
    const held = queued.flatMap((group) => ('held' in group ? [group.held] : []));
    const read = held.length === 0 ? [] : await this.contacts.readHeld(held);
    return queued.map((group) => ('held' in group ? read.shift()! : group.dispatch));
  }

  /**
   * Starts pushing back the retry time of these dispatch rows, every `renewalMs` until they are
   * released. While no delivery has ended for STALLED_RENEWALS renewals (a subscriber hangs), it
   * pushes back nothing, so the worker delivers the rows once their retry time passes.
   */
  private lease(ids: string[]): void {
    for (const id of ids) this.leased.add(id);
    if (this.renewal || this.leased.size === 0) return;
    this.renewal = setInterval(() => void this.renew(), this.renewalMs);
    this.renewal.unref();
  }

  private async renew(): Promise<void> {
    if (this.leased.size === 0) {
      clearInterval(this.renewal);
      this.renewal = undefined;
      return;
    }
    if (this.renewing || performance.now() - this.lastProgress > STALLED_RENEWALS * this.renewalMs) return;
    this.renewing = true;
    try {
      await this.contacts.renewHeld([...this.leased]);
    } catch (err) {
      logger.warn({ err }, 'could not push back the retry time of held event dispatches');
    } finally {
      this.renewing = false;
    }
  }

  /** Takes the next group from the queue: up to MAX_GROUP requests, the first waiting one of each contact. */
  private nextGroup(): PendingTrack[] {
    const group: PendingTrack[] = [];
    const left: PendingTrack[] = [];
    const contacts = new Set<string>();
    for (const item of this.pending) {
      if (group.length < MAX_GROUP && !contacts.has(item.contactKey)) {
        contacts.add(item.contactKey);
        group.push(item);
      } else {
        left.push(item);
      }
    }
    this.pending = left;
    return group;
  }

  /** Writes one group in one transaction and answers it; its dispatch follows the previous group's. */
  private async write(group: PendingTrack[]): Promise<void> {
    let workFailed = false;
    try {
      const { value, dispatch } = await this.contacts.commit(async (tx) => {
        try {
          return await this.store(tx, group);
        } catch (err) {
          workFailed = true;
          throw err;
        }
      });
      group.forEach((item, i) => item.resolve({ contact: value[i].contactId!, event: value[i].id, timestamp: value[i].createdAt }));
      this.queue(dispatch, group.length);
    } catch (err) {
      if (!(workFailed || certainlyRolledBack(err)) || group.length === 1) {
        for (const item of group) item.reject(err);
        return;
      }
      for (const item of group) await this.write([item]);
    }
  }

  /** Upserts the group's contacts and stores its events, project by project in id order; answers each request's event in group order. */
  private async store(tx: EventTransaction, group: PendingTrack[]): Promise<EventRecord[]> {
    const byProject = new Map<string, number[]>();
    group.forEach((item, i) => {
      const positions = byProject.get(item.projectId) ?? [];
      byProject.set(item.projectId, positions);
      positions.push(i);
    });
    const events: EventRecord[] = new Array(group.length);
    // Projects in id order (and each project's contacts in email order, by the upsert): two groups
    // written at once, by two API processes, lock the contacts they share in the same order.
    for (const [projectId, positions] of [...byProject].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const inputs = positions.map((i) => group[i].input);
      const patches = inputs.map((input) => parseDataPatch(input.data));
      const outcomes = await this.contacts.upsertMany(
        tx,
        projectId,
        inputs.map((input, n) => ({ email: input.email, patch: patches[n], subscribed: input.subscribed })),
        true,
      );
      const stored = tx.recordLast(
        inputs.map((input, n) => ({
          projectId,
          contactId: outcomes[n].id,
          name: input.event,
          data: { ...patches[n].set, ...patches[n].transient },
          source: 'API' as const,
        })),
      );
      positions.forEach((i, n) => (events[i] = stored[n]));
    }
    return events;
  }
}
