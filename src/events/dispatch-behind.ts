import { logger } from '../logger';
import type { PendingDispatch } from './event-store';

/** What delivering committed transactions' dispatches takes (ContactsService's `deliver` and `completeDelivered`). */
export interface DispatchDelivery {
  deliver(dispatches: PendingDispatch[]): Promise<boolean>;
  completeDelivered(dispatches: PendingDispatch[]): Promise<void>;
}

/**
 * Delivers committed transactions' dispatches behind their commits, for a writer that answers
 * its callers at the commit: one delivery at a time, each taking every dispatch that waited
 * for it, so subscribers run once for many transactions. Their rows were stored with the
 * transactions: a delivery that fails or is cut off by a crash leaves them to the worker's
 * redelivery. `room` waits while more than `maxWaiting` dispatches wait, so that a writer
 * committing faster than its subscribers keep up is slowed down instead of the backlog growing.
 */
export class DispatchBehind {
  private waiting: PendingDispatch[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly delivery: DispatchDelivery,
    private readonly maxWaiting = 64,
  ) {}

  /** Queues a committed transaction's dispatch for delivery. */
  add(dispatch: PendingDispatch): void {
    this.waiting.push(dispatch);
    this.running ??= this.drain();
  }

  /** Resolves once no more than `maxWaiting` dispatches wait. */
  async room(): Promise<void> {
    while (this.waiting.length > this.maxWaiting && this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const dispatches = this.waiting.splice(0);
      try {
        if (await this.delivery.deliver(dispatches)) await this.delivery.completeDelivered(dispatches);
      } catch (err) {
        logger.warn({ err }, 'could not deliver committed events; the worker delivers them again');
      }
    }
    this.running = undefined;
  }
}
