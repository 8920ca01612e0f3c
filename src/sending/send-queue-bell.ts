/**
 * Rung when a request commits emails to the send queue, so that the send lanes of the same
 * process claim them at once instead of at their next look at the queue.
 */
export class SendQueueBell {
  private readonly waiters = new Set<() => void>();

  /** Wakes every lane waiting. */
  ring(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves at the next ring, or after `ms` without one. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }
}
