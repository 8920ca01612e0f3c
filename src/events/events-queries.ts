import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { EventRecord, type EventSource } from '../entities/event-record';
import type { CursorParams } from '../http/pagination';

/** An event to store. */
export interface NewEvent {
  projectId: string;
  contactId: string | null;
  name: string;
  data?: Record<string, unknown>;
  source: EventSource;
}

/** A keyset position in an event list (newest first). */
export interface EventCursor {
  v: string;
  id: string;
}

/** New events as stored rows, with their ids (made here, so each row is known by its own); `createdAt` is set once inserted. */
export function newEventRecords(events: NewEvent[]): EventRecord[] {
  return events.map((event) => Object.assign(new EventRecord(), { id: randomUUID(), ...event, data: event.data ?? {} }));
}

/** The rows of new events as one `jsonb_to_recordset` parameter, read by EVENT_ROWS. */
export function eventRowsParameter(rows: EventRecord[]): string {
  return JSON.stringify(rows.map((row) => ({ id: row.id, project_id: row.projectId, contact_id: row.contactId, name: row.name, data: row.data, source: row.source })));
}

/** An INSERT of the events given as `$n` (see eventRowsParameter), answering each one's id and time. */
export const insertEventRows = (n: number) =>
  `INSERT INTO events (id, project_id, contact_id, name, data, source)
   SELECT e.id, e.project_id, e.contact_id, e.name, e.data, e.source
     FROM jsonb_to_recordset($${n}::jsonb) AS e(id uuid, project_id uuid, contact_id uuid, name text, data jsonb, source text)
   RETURNING id, created_at`;

/** Sets each row's `createdAt` from what its insert answered. */
export function setCreatedAt(rows: EventRecord[], stored: { id: string; created_at: Date | string }[]): void {
  const createdAt = new Map(stored.map((row) => [row.id, new Date(row.created_at)]));
  for (const row of rows) row.createdAt = createdAt.get(row.id)!;
}

/** Inserts events in the caller's transaction, in one statement whatever their number; answers them with their ids and times. */
export async function insertEvents(manager: EntityManager, events: NewEvent[]): Promise<EventRecord[]> {
  const rows = newEventRecords(events);
  setCreatedAt(rows, await manager.query(insertEventRows(1), [eventRowsParameter(rows)]));
  return rows;
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

/** One cursor page (`limit + 1` rows) of a project's events, newest first, optionally of one name or contact; with their total's query. */
export async function listEvents(
  dataSource: DataSource,
  projectId: string,
  filter: { name?: string; contactId?: string },
  page: CursorParams<EventCursor>,
) {
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
  const rows: Record<string, unknown>[] = await dataSource.query(
    `SELECT e.*, e.created_at::text AS sort_value FROM events e WHERE ${where}${keyset}
      ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
    params,
  );
  return {
    rows: rows.map((row) => ({ event: eventFromRow(row), sortValue: row.sort_value as string })),
    countTotal: async () => ((await dataSource.query(`SELECT count(*)::int AS n FROM events e WHERE ${where}`, countParams)) as { n: number }[])[0].n,
  };
}

/** A project's event totals over the last day, week and month, and per name. */
export async function eventStats(dataSource: DataSource, projectId: string) {
  const [totals] = await dataSource.query(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE created_at > now() - interval '24 hours')::int AS last24h,
            count(*) FILTER (WHERE created_at > now() - interval '7 days')::int AS last7d,
            count(*) FILTER (WHERE created_at > now() - interval '30 days')::int AS last30d
       FROM events WHERE project_id = $1`,
    [projectId],
  );
  const byName = await dataSource.query(
    'SELECT name, count(*)::int AS count FROM events WHERE project_id = $1 GROUP BY name ORDER BY count DESC, name',
    [projectId],
  );
  return { ...totals, byName };
}

/** A project's distinct event names, with their counts and when each was last seen, most frequent first. */
export function eventNames(dataSource: DataSource, projectId: string): Promise<{ name: string; count: number; lastSeenAt: Date }[]> {
  return dataSource.query(
    `SELECT name, count(*)::int AS count, max(created_at) AS "lastSeenAt"
       FROM events WHERE project_id = $1 GROUP BY name ORDER BY count DESC, name`,
    [projectId],
  );
}

/** Deletes every event of a name in a project; answers how many there were. */
export async function deleteEventsNamed(dataSource: DataSource, projectId: string, name: string): Promise<number> {
  const result = await dataSource.getRepository(EventRecord).delete({ projectId, name });
  return result.affected ?? 0;
}
