import type { DataSource } from 'typeorm';
import type { ContactsService } from '../contacts/contacts-service';
import type { EventRecord } from '../entities/event-record';
import { validationError } from '../http/errors';
import { cursorPage, type CursorRequest } from '../http/pagination';
import { segmentsReferencing } from '../segments/segments-queries';
import { workflowsReferencingEvent } from '../automations/workflows-queries';
import { TrackWriter, type TrackInput, type Tracked } from './track-writer';
import { eventNames, eventStats, deleteEventsNamed, listEvents, type EventCursor } from './events-queries';

export type { TrackInput };

const RESERVED_EVENT_NAMES = [/^email\./, /^contact\.(subscribed|unsubscribed)$/, /^segment\..+\.(entry|exit)$/];

/** Whether an event name belongs to the service (`email.*`, `contact.(un)subscribed`, `segment.<slug>.entry|exit`). */
export function isReservedEventName(name: string): boolean {
  return RESERVED_EVENT_NAMES.some((pattern) => pattern.test(name));
}

/** A stored event as the API shows it. */
export function eventView(event: EventRecord) {
  return {
    id: event.id,
    name: event.name,
    contactId: event.contactId,
    data: event.data,
    source: event.source,
    createdAt: event.createdAt,
  };
}

/** Tracking events and reading them back. */
export class EventsService {
  private readonly writer: TrackWriter;

  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
  ) {
    this.writer = new TrackWriter(contacts);
  }

  /**
   * Upserts the contact (new ones subscribed unless told otherwise), then stores the event, in one
   * transaction shared with the track requests that arrived meanwhile (src/events/track-writer.ts).
   */
  async track(projectId: string, input: TrackInput): Promise<Tracked> {
    if (isReservedEventName(input.event)) {
      throw validationError([
        { field: 'event', code: 'reserved_event', message: `"${input.event}" is reserved for events the service emits`, received: input.event },
      ]);
    }
    return this.writer.track(projectId, input);
  }

  /** A cursor page of events as the API shows them, newest first, optionally of one name or one contact. */
  async list(projectId: string, filter: { name?: string; contactId?: string }, page: CursorRequest<EventCursor>) {
    const { rows, countTotal } = await listEvents(this.dataSource, projectId, filter, page);
    const result = await cursorPage(rows, page, (row) => ({ v: row.sortValue, id: row.event.id }), countTotal);
    return { ...result, data: result.data.map((row) => eventView(row.event)) };
  }

  /** The events of one contact; 404 when the contact is not the project's. */
  async forContact(projectId: string, contactId: string, page: CursorRequest<EventCursor>) {
    await this.contacts.get(projectId, contactId);
    return this.list(projectId, { contactId }, page);
  }

  /** Totals over time windows and per name. */
  stats(projectId: string) {
    return eventStats(this.dataSource, projectId);
  }

  /** The distinct event names with their counts and when each was last seen. */
  async names(projectId: string) {
    return { data: await eventNames(this.dataSource, projectId) };
  }

  /** Where an event name is referenced; workflows, segments and campaigns report here as they reference events. */
  async usage(projectId: string, name: string) {
    const [workflows, segments] = await Promise.all([
      workflowsReferencingEvent(this.dataSource.manager, projectId, name),
      segmentsReferencing(this.dataSource.manager, projectId, (used) => used === `event.${name}`),
    ]);
    return { name, workflows, segments, campaigns: [] };
  }

  /** Deletes every event of a name in the project. */
  async deleteByName(projectId: string, name: string) {
    return { deleted: await deleteEventsNamed(this.dataSource, projectId, name) };
  }
}
