import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { EventRecord, type EventSource } from '../entities/event-record';
import type { EventDispatcher } from './dispatcher';

/** An event to store. */
export interface NewEvent {
  projectId: string;
  contactId: string | null;
  name: string;
  data?: Record<string, unknown>;
  source: EventSource;
}

/** A transaction that can store events; they are dispatched once it commits. */
export interface EventTransaction {
  manager: EntityManager;
  record(events: NewEvent[]): Promise<EventRecord[]>;
  /** Runs a step once the transaction committed (never when it rolls back); it is awaited before events are published. */
  afterCommit(step: () => void | Promise<void>): void;
}

/** Runs work in one database transaction and publishes the events it stored after the commit. */
export async function withEvents<T>(
  dataSource: DataSource,
  dispatcher: EventDispatcher,
  work: (tx: EventTransaction) => Promise<T>,
): Promise<T> {
  const stored: EventRecord[] = [];
  const committed: (() => void | Promise<void>)[] = [];
  const result = await dataSource.transaction(async (manager) =>
    work({
      manager,
      afterCommit: (step) => committed.push(step),
      record: async (events) => {
        if (events.length === 0) return [];
        const rows = events.map((event) => manager.create(EventRecord, { ...event, data: event.data ?? {} }));
        const inserted = await manager.insert(EventRecord, rows as QueryDeepPartialEntity<EventRecord>[]);
        rows.forEach((row, i) => Object.assign(row, inserted.generatedMaps[i]));
        stored.push(...rows);
        return rows;
      },
    }),
  );
  for (const step of committed) await step();
  await dispatcher.publish(stored);
  return result;
}
