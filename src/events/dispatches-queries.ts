import type { DataSource, EntityManager } from 'typeorm';
import { GroupWriter } from '../db/group-writer';
import type { RunQuery } from '../db/pipelined-transaction';
import { prepared } from '../db/prepared';
import { EventRecord } from '../entities/event-record';
import { eventRowsParameter, insertEventRows, setCreatedAt } from './events-queries';

/**
 * The dispatch queue (table `event_dispatches`): what one committed transaction must tell the
 * event subscribers, per project. The row is written inside the transaction, so it exists
 * exactly when the events and contact writes do; whoever delivers it deletes it.
 */

/** What subscribers are told about one project after a transaction commits. */
export interface DispatchBatch {
  projectId: string;
  /** Stored events, in the order stored. */
  events: EventRecord[];
  /** Contacts whose fields, data or subscription were written. */
  contactIds: string[];
}

/** A queued dispatch, as read back for redelivery. */
export interface QueuedDispatch {
  id: string;
  projectId: string;
  eventIds: string[];
  contactIds: string[];
  attempts: number;
}

/** How long the committing process has to deliver a dispatch before the worker delivers it again. */
export const FIRST_RETRY_SECONDS = 30;
/** The longest wait between two redeliveries of a dispatch whose subscribers keep failing. */
const MAX_RETRY_SECONDS = 3600;

const dispatchRows = (n: number) =>
  `INSERT INTO event_dispatches (project_id, event_ids, contact_ids, retry_at)
   SELECT b.project_id, b.event_ids, b.contact_ids, now() + make_interval(secs => $${n + 1})
     FROM jsonb_to_recordset($${n}::jsonb) AS b(project_id uuid, event_ids uuid[], contact_ids uuid[])
   RETURNING id`;

const dispatchRowsParameter = (batches: DispatchBatch[]) =>
  JSON.stringify(batches.map((batch) => ({ project_id: batch.projectId, event_ids: batch.events.map((event) => event.id), contact_ids: batch.contactIds })));

/** Stores the batches' dispatch rows through `query` (the caller's transaction, or its last statement); answers their ids. */
export async function enqueueDispatches(query: RunQuery, batches: DispatchBatch[]): Promise<string[]> {
  if (batches.length === 0) return [];
  const rows = (await query(dispatchRows(1), [dispatchRowsParameter(batches), FIRST_RETRY_SECONDS])) as { id: string }[];
  return rows.map((row) => String(row.id));
}

const INSERT_EVENTS_AND_ENQUEUE = prepared(`WITH stored AS (${insertEventRows(1)}), queued AS (${dispatchRows(2)})
     SELECT (SELECT json_agg(json_build_object('id', id, 'created_at', created_at)) FROM stored) AS events,
            ARRAY(SELECT id::text FROM queued) AS dispatches`);

/**
 * Inserts events (rows from newEventRecords, their `createdAt` set here) and stores the batches'
 * dispatch rows, in one statement run by `query` (the caller's transaction's last, sent with its COMMIT); answers the dispatch ids.
 */
export async function insertEventsAndEnqueue(query: RunQuery, events: EventRecord[], batches: DispatchBatch[]): Promise<string[]> {
  const [row] = (await query(
    INSERT_EVENTS_AND_ENQUEUE,
    [eventRowsParameter(events), dispatchRowsParameter(batches), FIRST_RETRY_SECONDS],
  )) as { events: { id: string; created_at: string }[] | null; dispatches: string[] }[];
  setCreatedAt(events, row.events ?? []);
  return row.dispatches;
}

/** Removes delivered dispatches. */
export async function completeDispatches(dataSource: DataSource, ids: string[]): Promise<void> {
  if (ids.length > 0) await dataSource.query('DELETE FROM event_dispatches WHERE id = ANY($1::bigint[])', [ids]);
}

const completers = new WeakMap<DataSource, GroupWriter<string[], undefined>>();

/**
 * Removes dispatches their committing process delivered. Removals that come while one is
 * being written share the next statement, so many concurrent requests cost few deletes.
 */
export async function completeDelivered(dataSource: DataSource, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const completer =
    completers.get(dataSource) ??
    new GroupWriter<string[], undefined>(async (groups) => {
      await completeDispatches(dataSource, groups.flat());
      return groups.map(() => undefined);
    });
  completers.set(dataSource, completer);
  await completer.add(ids);
}

/**
 * Claims up to `limit` dispatches whose retry time has passed: each gets its attempt counted
 * and its next retry time pushed back (30 s doubling, at most an hour), so a process that
 * dies while delivering it leaves it to a later pass. Claimed rows are skipped by concurrent passes.
 */
export async function claimDueDispatches(dataSource: DataSource, limit: number): Promise<QueuedDispatch[]> {
  // TypeORM answers an UPDATE ... RETURNING on Postgres with [rows, affected row count].
  const [rows]: [{ id: string; project_id: string; event_ids: string[]; contact_ids: string[]; attempts: number }[], number] = await dataSource.query(
    `UPDATE event_dispatches d
        SET attempts = d.attempts + 1,
            retry_at = now() + make_interval(secs => least($2::float8 * power(2, d.attempts), $3::float8))
      WHERE d.id IN (SELECT id FROM event_dispatches WHERE retry_at <= now() ORDER BY retry_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d.project_id, d.event_ids, d.contact_ids, d.attempts`,
    [limit, FIRST_RETRY_SECONDS, MAX_RETRY_SECONDS],
  );
  return rows
    .map((row) => ({ id: String(row.id), projectId: row.project_id, eventIds: row.event_ids, contactIds: row.contact_ids, attempts: row.attempts }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

/** Each dispatch's events that still exist, in the order they were stored, in one statement. */
export async function loadDispatchesEvents(manager: EntityManager, dispatches: Pick<QueuedDispatch, 'eventIds'>[]): Promise<EventRecord[][]> {
  const ids = dispatches.flatMap((dispatch) => dispatch.eventIds);
  const found = ids.length === 0 ? [] : await manager.getRepository(EventRecord).createQueryBuilder('e').where('e.id = ANY(:ids)', { ids }).getMany();
  const byId = new Map(found.map((event) => [event.id, event]));
  return dispatches.map((dispatch) => dispatch.eventIds.flatMap((id) => byId.get(id) ?? []));
}

/** How far ahead a process pushes the retry time of the dispatches it holds (renewHeldDispatches). */
export const HELD_RETRY_SECONDS = 60;

/**
 * Pushes back the retry time of dispatches their committing process still holds for delivery,
 * so that the worker does not deliver them beside it when its backlog outlasts
 * FIRST_RETRY_SECONDS: those due within 20 s are put HELD_RETRY_SECONDS ahead (called every 10 s,
 * each row is rewritten about every 40 s). A row the worker already claimed (its attempts
 * counted) stays the worker's.
 */
export async function renewHeldDispatches(dataSource: DataSource, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await dataSource.query(
    `UPDATE event_dispatches SET retry_at = now() + make_interval(secs => $2)
      WHERE id = ANY($1::bigint[]) AND attempts = 0 AND retry_at < now() + interval '20 seconds'`,
    [ids, HELD_RETRY_SECONDS],
  );
}

/** How often a process renews the retry time of the dispatches it holds (renewHeldDispatches). */
export const DISPATCH_LEASE_RENEWAL_MS = 10_000;

/**
 * Takes back dispatches their committing process kept by id only (a backlog) for their
 * delivery, with their events, in the order of `ids`: each row still unclaimed gets its retry
 * time pushed back under its row lock, so the worker, which skips locked rows and counts its
 * attempts as it claims one, delivers none of them beside this process. A row the worker claimed
 * or removed meanwhile is left out (the worker delivers it).
 */
export async function loadHeldDispatches(manager: EntityManager, ids: string[]): Promise<{ id: string; batch: DispatchBatch }[]> {
  if (ids.length === 0) return [];
  // TypeORM answers an UPDATE ... RETURNING on Postgres with [rows, affected row count].
  const [rows]: [{ id: string; project_id: string; event_ids: string[]; contact_ids: string[] }[], number] = await manager.query(
    `UPDATE event_dispatches SET retry_at = now() + make_interval(secs => $2)
      WHERE id = ANY($1::bigint[]) AND attempts = 0
      RETURNING id, project_id, event_ids, contact_ids`,
    [ids, HELD_RETRY_SECONDS],
  );
  const byId = new Map(rows.map((row) => [String(row.id), row]));
  const held = ids.flatMap((id) => byId.get(id) ?? []);
  const events = await loadDispatchesEvents(manager, held.map((row) => ({ eventIds: row.event_ids })));
  return held.map((row, i) => ({ id: String(row.id), batch: { projectId: row.project_id, events: events[i], contactIds: row.contact_ids } }));
}
