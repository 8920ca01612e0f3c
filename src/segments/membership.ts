import type { DataSource } from 'typeorm';
import type { ContactsService } from '../contacts/contacts-service';
import { Segment } from '../entities/segment';
import type { NewEvent } from '../events/event-store';
import * as queries from './segments-queries';

/** How many contacts one step of a full computation moves (one transaction each). */
export const COMPUTE_PAGE_SIZE = 1000;

/** What a full computation of a tracked segment changed. */
export interface ComputeResult {
  entered: number;
  exited: number;
  memberCount: number;
}

type Change = 'entry' | 'exit';

/** The SYSTEM events `segment.<slug>.entry|exit` of contacts that joined or left a segment. */
export function membershipEvents(segment: Segment, change: Change, contactIds: string[]): NewEvent[] {
  return contactIds.map((contactId) => ({
    projectId: segment.projectId,
    contactId,
    name: `segment.${segment.slug}.${change}`,
    data: membershipData(segment),
    source: 'SYSTEM' as const,
  }));
}

/** The `data` of a segment's entry and exit events. */
function membershipData(segment: Segment): Record<string, unknown> {
  return { segmentId: segment.id, segmentName: segment.name };
}

/**
 * Stored membership of tracked segments: brings it in line with the condition, fully or for a
 * few contacts, and records one entry or exit event per contact that joined or left. Membership
 * rows and their events commit together; an insert that found the row already there, or a delete
 * that found it gone, fires nothing, so concurrent computations never fire an event twice.
 */
export class SegmentMembership {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
  ) {}

  /** Computes a tracked segment's membership in pages; a segment deleted or no longer tracked is skipped. */
  async compute(segmentId: string, progress: (moved: number) => void = () => undefined): Promise<ComputeResult> {
    const segment = await queries.segmentById(this.dataSource.manager, segmentId);
    if (!segment || segment.type !== 'DYNAMIC' || !segment.trackMembership) {
      return { entered: 0, exited: 0, memberCount: segment?.memberCount ?? 0 };
    }
    const matching = await queries.segmentContacts(this.dataSource.manager, segment);
    let moved = 0;
    const drain = async (change: Change) => {
      let count = 0;
      let after: string | null = null;
      do {
        const step = await this.apply(segment, change, matching, { after, limit: COMPUTE_PAGE_SIZE });
        count += step.contactIds.length;
        after = step.next;
        progress((moved += step.contactIds.length));
      } while (after !== null);
      return count;
    };
    const entered = await drain('entry');
    const exited = await drain('exit');
    return { entered, exited, memberCount: await queries.recountMembers(this.dataSource.manager, segment.id) };
  }

  /**
   * Re-evaluates some contacts of a project against each of its tracked segments: one statement
   * per segment moves them and stores their entry and exit events with the events' dispatch row
   * (queries.moveMembers), then the events are delivered. The cached `memberCount` is left as it
   * is: full computations and refreshes recount it.
   */
  async reevaluate(projectId: string, contactIds: string[]): Promise<void> {
    if (contactIds.length === 0) return;
    const { manager } = this.dataSource;
    for (const segment of await queries.trackedSegments(manager, projectId)) {
      const matching = await queries.segmentContacts(manager, segment);
      const { events, dispatchId } = await queries.moveMembers(manager, segment, matching, contactIds, membershipData(segment));
      if (dispatchId === null) continue;
      const dispatch = { steps: [], batches: [{ projectId, events, contactIds: [] }], queued: [dispatchId] };
      if (await this.contacts.deliver([dispatch])) await this.contacts.completeDelivered([dispatch]);
    }
  }

  /** Applies one step of the difference and records its events, in one transaction. */
  private apply(segment: Segment, change: Change, matching: queries.ContactSelection, scope: queries.DiffScope) {
    return this.contacts.transaction(async (tx) => {
      const step = change === 'entry'
        ? await queries.enterMatching(tx.manager, segment.id, matching, scope)
        : await queries.exitNonMatching(tx.manager, segment.id, matching, scope);
      await tx.record(membershipEvents(segment, change, step.contactIds));
      return step;
    });
  }
}
