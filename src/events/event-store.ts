import type { DataSource, EntityManager } from 'typeorm';
import type { EventRecord } from '../entities/event-record';
import { pooledTransactions, type Transactions } from '../db/pipelined-transaction';
import { logger } from '../logger';
import type { EventDispatcher } from './dispatcher';
import { completeDelivered, enqueueDispatches, insertEventsAndEnqueue, loadHeldDispatches, type DispatchBatch } from './dispatches-queries';
import { insertEvents, newEventRecords, type NewEvent } from './events-queries';

export type { NewEvent };

/** A transaction that can store events; they are dispatched once it commits. */
export interface EventTransaction {
  manager: EntityManager;
  record(events: NewEvent[]): Promise<EventRecord[]>;
  /**
   * Stores events as the transaction's last write: they are inserted with its dispatch rows, in
   * one statement, once the work is done. Answers them with their ids; their `createdAt` is set
   * once the transaction committed.
   */
  recordLast(events: NewEvent[]): EventRecord[];
  /** Announces contacts whose fields, data or subscription the transaction wrote (dispatched once it commits). */
  contactsChanged(projectId: string, contactIds: string[]): void;
  /** Runs a step once the transaction committed (never when it rolls back); it is awaited before events are dispatched. */
  afterCommit(step: () => void | Promise<void>): void;
}

/** Parts of what transactions stored and wrote, each of one project. */
interface BatchPart {
  projectId: string;
  events?: EventRecord[];
  contactIds?: Iterable<string>;
}

/** One batch per project of the parts, events in the order given, each contact once. */
export function byProject(parts: Iterable<BatchPart>): DispatchBatch[] {
  const merged = new Map<string, { events: EventRecord[]; contactIds: Set<string> }>();
  for (const part of parts) {
    const found = merged.get(part.projectId) ?? { events: [], contactIds: new Set<string>() };
    merged.set(part.projectId, found);
    if (part.events) found.events.push(...part.events);
    for (const id of part.contactIds ?? []) found.contactIds.add(id);
  }
  return [...merged].map(([projectId, { events, contactIds }]) => ({ projectId, events, contactIds: [...contactIds] }));
}

/** Groups what a transaction stored and wrote by project, events in the order stored. */
function batchesOf(stored: EventRecord[], changed: Map<string, Set<string>>): DispatchBatch[] {
  const events = stored.map((event): BatchPart => ({ projectId: event.projectId, events: [event] }));
  return byProject([...events, ...[...changed].map(([projectId, contactIds]) => ({ projectId, contactIds }))]);
}

/** What a committed transaction still has to do: its after-commit steps, and the delivery of its queued dispatch rows. */
export interface PendingDispatch {
  steps: (() => void | Promise<void>)[];
  batches: DispatchBatch[];
  queued: string[];
}

/** A committed transaction's result, with the dispatch of what it stored still to run. */
export interface Committed<T> {
  value: T;
  dispatch: PendingDispatch;
}

/**
 * Runs work in one database transaction of `transactions` that queues the dispatch of what it
 * stored (src/events/dispatches-queries.ts) in its last statement, sent with its COMMIT
 * (src/db/pipelined-transaction.ts), and answers once it committed, leaving the dispatch to
 * the caller (deliverDispatches). A crash or a failing subscriber after the commit delays the
 * delivery (the worker delivers it again) but never loses it.
 */
export async function commitWithEvents<T>(
  transactions: Transactions,
  work: (tx: EventTransaction) => Promise<T>,
): Promise<Committed<T>> {
  const stored: EventRecord[] = [];
  const changed = new Map<string, Set<string>>();
  const last: EventRecord[] = [];
  const dispatch: PendingDispatch = { steps: [], batches: [], queued: [] };
  const value = await transactions(async (manager, commitWith) => {
    const result = await work({
      manager,
      afterCommit: (step) => dispatch.steps.push(step),
      contactsChanged: (projectId, contactIds) => {
        const ids = changed.get(projectId) ?? new Set<string>();
        for (const id of contactIds) ids.add(id);
        changed.set(projectId, ids);
      },
      record: async (events) => {
        if (events.length === 0) return [];
        const rows = await insertEvents(manager, events);
        stored.push(...rows);
        return rows;
      },
      recordLast: (events) => {
        const rows = newEventRecords(events);
        last.push(...rows);
        stored.push(...rows);
        return rows;
      },
    });
    dispatch.batches = batchesOf(stored, changed);
    dispatch.queued =
      last.length > 0 ? await insertEventsAndEnqueue(commitWith, last, dispatch.batches) : await enqueueDispatches(commitWith, dispatch.batches);
    return result;
  });
  return { value, dispatch };
}

/**
 * Runs the after-commit steps of committed transactions (in commit order) and delivers what they
 * stored to the subscribers, one batch per project for all of them; true when every subscriber
 * succeeded (then completeDispatched removes their rows). Never throws for a subscriber's
 * failure: the rows stay and the worker delivers them again.
 */
export async function deliverDispatches(dispatcher: EventDispatcher, dispatches: PendingDispatch[]): Promise<boolean> {
  for (const step of dispatches.flatMap((dispatch) => dispatch.steps)) await step();
  const batches = dispatches.length === 1 ? dispatches[0].batches : byProject(dispatches.flatMap((dispatch) => dispatch.batches));
  const delivered = await Promise.all(batches.map((batch) => dispatcher.deliver(batch)));
  return delivered.every(Boolean);
}

/**
 * A committed transaction's dispatch held by its rows' ids, without its stored events: its
 * batches are read back (readHeld) when its turn to be delivered comes. Its after-commit steps
 * already run; `ready` settles with them.
 */
export interface HeldDispatch {
  queued: string[];
  ready: Promise<void>;
}

/** Runs a pending dispatch's after-commit steps now and drops its events, keeping its rows' ids. */
export function holdDispatch(dispatch: PendingDispatch): HeldDispatch {
  const ready = (async () => {
    for (const step of dispatch.steps) await step();
  })();
  // Awaited as its delivery's first step, which fails with it (the worker then delivers it).
  ready.catch(() => undefined);
  return { queued: dispatch.queued, ready };
}

/**
 * Reads back held dispatches, in order, ready for deliverDispatches, in two statements however
 * many they are; a row the worker claimed meanwhile is left out (the worker delivers it).
 */
export async function readHeld(dataSource: DataSource, held: HeldDispatch[]): Promise<PendingDispatch[]> {
  const rows = await loadHeldDispatches(dataSource.manager, held.flatMap((dispatch) => dispatch.queued));
  const batches = new Map(rows.map(({ id, batch }) => [id, batch]));
  return held.map((dispatch) => {
    const queued = dispatch.queued.filter((id) => batches.has(id));
    return { steps: [() => dispatch.ready], batches: queued.map((id) => batches.get(id)!), queued };
  });
}

/** Removes the dispatch rows of delivered transactions; a row that stays is delivered again later, which subscribers tolerate. */
export async function completeDispatched(dataSource: DataSource, dispatches: PendingDispatch[]): Promise<void> {
  const queued = dispatches.flatMap((dispatch) => dispatch.queued);
  await completeDelivered(dataSource, queued).catch((err: unknown) => logger.warn({ err }, 'could not remove delivered event dispatches'));
}

/** Runs work in one database transaction (see commitWithEvents) and dispatches what it stored after the commit. */
export async function withEvents<T>(
  dataSource: DataSource,
  dispatcher: EventDispatcher,
  work: (tx: EventTransaction) => Promise<T>,
): Promise<T> {
  const { value, dispatch } = await commitWithEvents(pooledTransactions(dataSource), work);
  if (await deliverDispatches(dispatcher, [dispatch])) await completeDispatched(dataSource, [dispatch]);
  return value;
}
