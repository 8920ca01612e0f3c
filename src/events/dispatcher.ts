import type { EventRecord } from '../entities/event-record';
import { logger } from '../logger';
import type { DispatchBatch } from './dispatches-queries';

/**
 * Something that reacts to stored events: workflow triggers, waits, tracked segments. It
 * throws when it could not do its work for now (it is called again later with the same
 * events), so it must be safe to call twice with the same events.
 */
export type EventSubscriber = (events: EventRecord[]) => Promise<void> | void;

/**
 * Something that reacts to one project's committed batch as a whole, its stored events and the
 * contacts it wrote together (so a contact both written and given an event is handled once);
 * the same rules apply.
 */
export type BatchHandler = (batch: DispatchBatch) => Promise<void> | void;

/** Something that reacts to contacts whose fields, data or subscription were written (tracked segments); the same rules apply. */
export type ContactsChangedHandler = (projectId: string, contactIds: string[]) => Promise<void> | void;

/** Runs every handler at once; a failure is reported to `failed` and does not stop the others. True when none failed. */
async function allSucceeded<H>(handlers: Iterable<H>, run: (handler: H) => Promise<void> | void, failed: (err: unknown) => void): Promise<boolean> {
  const results = await Promise.all(
    [...handlers].map(async (handler) => {
      try {
        await run(handler);
        return true;
      } catch (err) {
        failed(err);
        return false;
      }
    }),
  );
  return results.every(Boolean);
}

/**
 * The one point every stored event passes through after its transaction committed,
 * tracked or SYSTEM alike, and contact writes, which store no event of their own. What a
 * transaction must announce is queued with it (src/events/dispatches-queries.ts): the committing
 * process delivers it at once, and a delivery that failed or never happened is repeated
 * by the worker's `event-redelivery` workflow. Subscribers see each event at least once,
 * in the order stored.
 */
export class EventDispatcher {
  private readonly subscribers = new Set<EventSubscriber>();
  private readonly changeHandlers = new Set<ContactsChangedHandler>();
  private readonly batchHandlers = new Set<BatchHandler>();

  /** Adds a subscriber; returns a function that removes it. */
  subscribe(subscriber: EventSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Adds a handler of committed contact writes; returns a function that removes it. */
  onContactsChanged(handler: ContactsChangedHandler): () => void {
    this.changeHandlers.add(handler);
    return () => this.changeHandlers.delete(handler);
  }

  /** Adds a handler of whole batches; returns a function that removes it. */
  onBatch(handler: BatchHandler): () => void {
    this.batchHandlers.add(handler);
    return () => this.batchHandlers.delete(handler);
  }

  /** Delivers one project's batch to every subscriber and handler; true when none of them failed. */
  async deliver(batch: DispatchBatch): Promise<boolean> {
    const results = await Promise.all([this.publish(batch.events), this.contactsChanged(batch.projectId, batch.contactIds), this.handleBatch(batch)]);
    return results.every(Boolean);
  }

  /** Hands a batch to every batch handler; one handler's failure does not stop the others. True when none failed. */
  private handleBatch(batch: DispatchBatch): Promise<boolean> {
    if (batch.events.length === 0 && batch.contactIds.length === 0) return Promise.resolve(true);
    return allSucceeded(this.batchHandlers, (handler) => handler(batch), (err) =>
      logger.error({ err, projectId: batch.projectId, events: batch.events.length, contacts: batch.contactIds.length }, 'batch handler failed; the batch will be dispatched again'),
    );
  }

  /** Hands committed events to every subscriber; one subscriber's failure does not stop the others. True when none failed. */
  publish(events: EventRecord[]): Promise<boolean> {
    if (events.length === 0) return Promise.resolve(true);
    return allSucceeded(this.subscribers, (subscriber) => subscriber(events), (err) =>
      logger.error({ err, events: events.map((event) => event.id) }, 'event subscriber failed; the events will be dispatched again'),
    );
  }

  /** Tells every handler that these contacts of a project were written; one handler's failure does not stop the others. True when none failed. */
  contactsChanged(projectId: string, contactIds: string[]): Promise<boolean> {
    if (contactIds.length === 0) return Promise.resolve(true);
    return allSucceeded(this.changeHandlers, (handler) => handler(projectId, contactIds), (err) =>
      logger.error({ err, projectId, contacts: contactIds.length }, 'contacts-changed handler failed; the change will be dispatched again'),
    );
  }
}
