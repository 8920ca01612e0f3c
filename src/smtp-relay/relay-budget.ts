/**
 * Message bytes held in memory by one process's relay, across every connection: each chunk
 * of a message being received is taken before it is kept and given back once the message has
 * been handled, so many large messages at once cannot exhaust the process's memory.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get inFlight(): number {
    return this.used;
  }

  /** Whether `bytes` more would fit now. */
  fits(bytes: number): boolean {
    return this.used + bytes <= this.limit;
  }

  /** Takes `bytes` when they fit (true); otherwise takes nothing (false). */
  take(bytes: number): boolean {
    if (!this.fits(bytes)) return false;
    this.used += bytes;
    return true;
  }

  /** Gives back bytes taken before. */
  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
