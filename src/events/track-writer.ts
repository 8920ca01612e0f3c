import { normalizeEmail, type ContactsService } from '../contacts/contacts-service';
import { parseDataPatch } from '../contacts/data-rules';
import type { EventRecord } from '../entities/event-record';
import { logger } from '../logger';
import { GroupWriter } from '../db/group-writer';
import type { EventTransaction, PendingDispatch } from './event-store';

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
 * Group transactions written at once (on as many pool connections); a contact is in at most one
 * of them. One keeps groups largest, which costs least on a machine Postgres shares.
 */
const WRITERS = 1;

/** A committed group: its dispatch, and how to answer its requests once that was delivered. */
interface CommittedGroup {
  dispatch: PendingDispatch;
  answer: () => void;
}

interface PendingTrack {
  projectId: string;
  input: TrackInput;
  /** The project and the normalised email: one group holds at most one request per contact. */
  contactKey: string;
  resolve: (tracked: Tracked) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of tracked events. Requests that arrive while group transactions run are stored
 * together by the next one (one contact upsert, one event insert and one dispatch row for the
 * whole group), which starts as soon as a running one commits; WRITERS groups are written at
 * once, never two holding the same contact. Committed groups are dispatched the same way: those
 * committed while a dispatch runs are delivered together next, in commit order. Each request is
 * answered once its group was delivered, as a lone transaction would be; the delivered dispatch
 * rows are removed after the answers.
 *
 * A group holds at most one request per contact; a later request for a contact already in a
 * group being formed or written waits for a later group, so one contact's requests are applied
 * one after the other in arrival order (data patches, subscription flips and their events, event order),
 * exactly as separate transactions would. When the group's work fails (a billing or data-key
 * cap, a bad value), nothing of it was committed: its requests are then written one by one,
 * so each gets its own answer. A failure of the commit itself is every member's answer, since
 * whether it committed is unknown and writing again could store an event twice.
 */
export class TrackWriter {
  private pending: PendingTrack[] = [];
  private writers = 0;
  /** The contacts of the groups being written: a contact's next request waits until its group committed. */
  private readonly writingContacts = new Set<string>();
  /** Committed groups: those committed while one is delivered are delivered together next. */
  private readonly deliveries: GroupWriter<CommittedGroup, undefined>;

  constructor(private readonly contacts: ContactsService) {
    this.deliveries = new GroupWriter(async (groups) => {
      const dispatches = groups.map((group) => group.dispatch);
      const delivered = await contacts.deliver(dispatches).catch((err: unknown) => {
        logger.error({ err }, 'tracked events committed but not dispatched; the worker delivers them again');
        return false;
      });
      // Committed: each request is answered with its ids whatever the delivery did (a failed one is repeated later).
      for (const group of groups) group.answer();
      // Removed beside the next delivery (completeDelivered groups the deletes and logs its own failure).
      if (delivered) void contacts.completeDelivered(dispatches);
      return groups.map(() => undefined);
    });
  }

  /** Stores one tracked event with its contact upsert; answers once it committed and was dispatched. */
  track(projectId: string, input: TrackInput): Promise<Tracked> {
    return new Promise((resolve, reject) => {
      this.pending.push({ projectId, input, contactKey: `${projectId}\u0000${normalizeEmail(input.email)}`, resolve, reject });
      this.startWriters();
    });
  }

  /** Starts writers, up to WRITERS, while some waiting request's contact is not being written. */
  private startWriters(): void {
    while (this.writers < WRITERS && this.pending.some((item) => !this.writingContacts.has(item.contactKey))) {
      this.writers += 1;
      void this.writeGroups();
    }
  }

  /** One writer: writes groups until none can be taken, then leaves what waits to the writers running or started next. */
  private async writeGroups(): Promise<void> {
    for (let group = this.nextGroup(); group.length > 0; group = this.nextGroup()) {
      await this.write(group);
      for (const item of group) this.writingContacts.delete(item.contactKey);
    }
    this.writers -= 1;
    this.startWriters();
  }

  /** Takes the next group from the queue: up to MAX_GROUP requests, the first one of each contact no other group is writing. */
  private nextGroup(): PendingTrack[] {
    const group: PendingTrack[] = [];
    const left: PendingTrack[] = [];
    for (const item of this.pending) {
      if (group.length < MAX_GROUP && !this.writingContacts.has(item.contactKey)) {
        this.writingContacts.add(item.contactKey);
        group.push(item);
      } else {
        left.push(item);
      }
    }
    this.pending = left;
    return group;
  }

  /** Writes one group in one transaction; its dispatch (with the groups committed meanwhile) follows the previous one's, then it is answered. */
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
      const answer = () => group.forEach((item, i) => item.resolve({ contact: value[i].contactId!, event: value[i].id, timestamp: value[i].createdAt }));
      void this.deliveries.add({ dispatch, answer });
    } catch (err) {
      if (!workFailed || group.length === 1) {
        for (const item of group) item.reject(err);
        return;
      }
      for (const item of group) await this.write([item]);
    }
  }

  /** Upserts the group's contacts and stores its events, project by project; answers each request's event in group order. */
  private async store(tx: EventTransaction, group: PendingTrack[]): Promise<EventRecord[]> {
    const byProject = new Map<string, number[]>();
    group.forEach((item, i) => {
      const positions = byProject.get(item.projectId) ?? [];
      byProject.set(item.projectId, positions);
      positions.push(i);
    });
    const events: EventRecord[] = new Array(group.length);
    for (const [projectId, positions] of byProject) {
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
