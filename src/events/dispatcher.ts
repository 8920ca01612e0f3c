import type { EventRecord } from '../entities/event-record';
import { logger } from '../logger';

/** Something that reacts to stored events: workflow triggers, waits, tracked segments. */
export type EventSubscriber = (events: EventRecord[]) => Promise<void> | void;

/**
 * The one point every stored event passes through after its transaction committed,
 * tracked or SYSTEM alike. Subscribers see each event once, in the order stored.
 */
export class EventDispatcher {
  private readonly subscribers = new Set<EventSubscriber>();

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
}
