import type { DataSource, EntityManager } from 'typeorm';
import type { EventRecord } from '../entities/event-record';
import { logger } from '../logger';
import type { EventDispatcher } from './dispatcher';
import { completeDelivered, enqueueDispatches, type DispatchBatch } from './dispatches-queries';
import { insertEvents, type NewEvent } from './events-queries';

export type { NewEvent };


/** A transaction that can store events; they are dispatched once it commits. */
export interface EventTransaction {
  manager: EntityManager;
  record(events: NewEvent[]): Promise<EventRecord[]>;
  /** Announces contacts whose fields, data or subscription the transaction wrote (dispatched once it commits). */
  contactsChanged(projectId: string, contactIds: string[]): void;
  /** Runs a step once the transaction committed (never when it rolls back); it is awaited before events are dispatched. */
  afterCommit(step: () => void | Promise<void>): void;
}

/** Groups what a transaction stored and wrote by project, events in the order stored. */
function batchesOf(stored: EventRecord[], changed: Map<string, Set<string>>): DispatchBatch[] {
  const batches = new Map<string, DispatchBatch>();
  const batch = (projectId: string) => {
    const found = batches.get(projectId) ?? { projectId, events: [], contactIds: [] };
    batches.set(projectId, found);
    return found;
  };
  for (const event of stored) batch(event.projectId).events.push(event);
  for (const [projectId, ids] of changed) batch(projectId).contactIds.push(...ids);
  return [...batches.values()];
}

/**
 * Runs work in one database transaction and dispatches what it stored after the commit.
 * The dispatch is queued in the same transaction (src/events/dispatches-queries.ts), so a crash or a
 * failing subscriber after the commit delays it (the worker delivers it again) but never loses it.
 */
export async function withEvents<T>(
  dataSource: DataSource,
  dispatcher: EventDispatcher,
  work: (tx: EventTransaction) => Promise<T>,
): Promise<T> {
  const stored: EventRecord[] = [];
  const changed = new Map<string, Set<string>>();
  const committed: (() => void | Promise<void>)[] = [];
  let batches: DispatchBatch[] = [];
  let queued: string[] = [];
  const result = await dataSource.transaction(async (manager) => {
    const value = await work({
      manager,
      afterCommit: (step) => committed.push(step),
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
    });
    batches = batchesOf(stored, changed);
    queued = await enqueueDispatches(manager, batches);
    return value;
  });
  for (const step of committed) await step();
  const delivered = await Promise.all(batches.map((batch) => dispatcher.deliver(batch)));
  if (delivered.every(Boolean)) {
    // A row that stays is delivered again later, which subscribers tolerate.
    await completeDelivered(dataSource, queued).catch((err: unknown) => logger.warn({ err }, 'could not remove delivered event dispatches'));
  }
  return result;
}
