import type { DataSource } from 'typeorm';
import type { ContactsService } from '../contacts/contacts-service';
import { EventRecord } from '../entities/event-record';
import { validationError } from '../http/errors';
import type { CursorParams } from '../http/pagination';
import { segmentsReferencing } from '../segments/segments-queries';
import { workflowsReferencingEvent } from '../automations/workflows-queries';

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

/** A tracked event: the contact to upsert and the event to store on it. */
export interface TrackInput {
  email: string;
  event: string;
  data?: Record<string, unknown>;
  subscribed?: boolean;
}

/** A keyset position in an event list (newest first). */
export interface EventCursor {
  v: string;
  id: string;
}

/** Tracking events and reading them back. */
export class EventsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
  ) {}

  /** Upserts the contact (new ones subscribed unless told otherwise), then stores the event, in one transaction. */
  async track(projectId: string, input: TrackInput) {
    if (isReservedEventName(input.event)) {
      throw validationError([
        { field: 'event', code: 'reserved_event', message: `"${input.event}" is reserved for events the service emits`, received: input.event },
      ]);
    }
    return this.contacts.transaction(async (tx) => {
      const { outcome: contact, patch } = await this.contacts.upsertIn(tx, projectId, input, true);
      const [event] = await tx.record([
        { projectId, contactId: contact.id, name: input.event, data: { ...patch.set, ...patch.transient }, source: 'API' },
      ]);
      return { contact: contact.id, event: event.id, timestamp: event.createdAt };
    });
  }

  /** A cursor page of events, newest first, optionally of one name or one contact. */
  async list(projectId: string, filter: { name?: string; contactId?: string }, page: CursorParams<EventCursor>) {
    const params: unknown[] = [projectId];
    const clauses = ['e.project_id = $1'];
    if (filter.name) {
      params.push(filter.name);
      clauses.push(`e.name = $${params.length}`);
    }
    if (filter.contactId) {
      params.push(filter.contactId);
      clauses.push(`e.contact_id = $${params.length}`);
    }
    const where = clauses.join(' AND ');
    const countParams = [...params];
    let keyset = '';
    if (page.cursor) {
      params.push(page.cursor.v, page.cursor.id);
      keyset = ` AND (e.created_at, e.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
    }
    params.push(page.limit + 1);
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT e.*, e.created_at::text AS sort_value FROM events e WHERE ${where}${keyset}
        ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
      params,
    );
    return {
      rows: rows.map((row) => ({ event: eventFromRow(row), sortValue: row.sort_value as string })),
      countTotal: async () =>
        ((await this.dataSource.query(`SELECT count(*)::int AS n FROM events e WHERE ${where}`, countParams)) as { n: number }[])[0].n,
    };
  }

  /** The events of one contact; 404 when the contact is not the project's. */
  async forContact(projectId: string, contactId: string, page: CursorParams<EventCursor>) {
    await this.contacts.get(projectId, contactId);
    return this.list(projectId, { contactId }, page);
  }

  /** Totals over time windows and per name. */
  async stats(projectId: string) {
    const [totals] = await this.dataSource.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE created_at > now() - interval '24 hours')::int AS last24h,
              count(*) FILTER (WHERE created_at > now() - interval '7 days')::int AS last7d,
              count(*) FILTER (WHERE created_at > now() - interval '30 days')::int AS last30d
         FROM events WHERE project_id = $1`,
      [projectId],
    );
    const byName = await this.dataSource.query(
      'SELECT name, count(*)::int AS count FROM events WHERE project_id = $1 GROUP BY name ORDER BY count DESC, name',
      [projectId],
    );
    return { ...totals, byName };
  }

  /** The distinct event names with their counts and when each was last seen. */
  async names(projectId: string) {
    const data = await this.dataSource.query(
      `SELECT name, count(*)::int AS count, max(created_at) AS "lastSeenAt"
         FROM events WHERE project_id = $1 GROUP BY name ORDER BY count DESC, name`,
      [projectId],
    );
    return { data };
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
    const result = await this.dataSource.getRepository(EventRecord).delete({ projectId, name });
    return { deleted: result.affected ?? 0 };
  }
}

/** Maps a raw `events` row to the entity shape. */
function eventFromRow(row: Record<string, unknown>): EventRecord {
  return Object.assign(new EventRecord(), {
    id: row.id,
    projectId: row.project_id,
    contactId: row.contact_id,
    name: row.name,
    data: row.data,
    source: row.source,
    createdAt: row.created_at,
  });
}
