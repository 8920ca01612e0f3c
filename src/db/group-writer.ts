/**
 * Runs a write for many callers, one write at a time, in groups: an item added while a write
 * runs joins the next write, which starts as soon as that one ends; an item added while none
 * runs is written at once. So an item never waits for more than the write before its own, and
 * items that arrive together share one statement or transaction. `add` answers the item's own
 * result (`write` answers one per item, in order), or throws its group's error.
 */
export class GroupWriter<T, R> {
  private pending: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<R[]>) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const group = this.pending.splice(0);
      try {
        const results = await this.write(group.map((entry) => entry.item));
        group.forEach((entry, i) => entry.resolve(results[i]));
      } catch (err) {
        for (const entry of group) entry.reject(err);
      }
    }
    this.writing = false;
  }
}
