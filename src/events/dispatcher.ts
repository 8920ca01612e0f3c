import type { EventRecord } from '../entities/event-record';
import { logger } from '../logger';

/** Something that reacts to stored events: workflow triggers, waits, tracked segments. */
export type EventSubscriber = (events: EventRecord[]) => Promise<void> | void;

/** Something that reacts to contacts whose fields, data or subscription were written (tracked segments). */
export type ContactsChangedHandler = (projectId: string, contactIds: string[]) => Promise<void> | void;

/**
 * The one point every stored event passes through after its transaction committed,
 * tracked or SYSTEM alike. Subscribers see each event once, in the order stored.
 * Contact writes, which store no event of their own, are announced here too.
 */
export class EventDispatcher {
  private readonly subscribers = new Set<EventSubscriber>();
  private readonly changeHandlers = new Set<ContactsChangedHandler>();

  /** Adds a subscriber; returns a function that removes it. */
  subscribe(subscriber: EventSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Hands committed events to every subscriber; one subscriber's failure does not stop the others. */
  async publish(events: EventRecord[]): Promise<void> {
    if (events.length === 0) return;
    await Promise.all(
      [...this.subscribers].map(async (subscriber) => {
        try {
          await subscriber(events);
        } catch (err) {
          logger.error({ err, events: events.map((event) => event.id) }, 'event subscriber failed');
        }
      }),
    );
  }

  /** Adds a handler of committed contact writes; returns a function that removes it. */
  onContactsChanged(handler: ContactsChangedHandler): () => void {
    this.changeHandlers.add(handler);
    return () => this.changeHandlers.delete(handler);
  }

  /** Tells every handler that these contacts of a project were written; one handler's failure does not stop the others. */
  async contactsChanged(projectId: string, contactIds: string[]): Promise<void> {
    if (contactIds.length === 0) return;
    await Promise.all(
      [...this.changeHandlers].map(async (handler) => {
        try {
          await handler(projectId, contactIds);
        } catch (err) {
          logger.error({ err, projectId, contacts: contactIds.length }, 'contacts-changed handler failed');
        }
      }),
    );
  }
}
