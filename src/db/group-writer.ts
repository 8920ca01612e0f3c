/**
 * Runs a write for many callers, one write at a time, in groups: an item added while a write
 * runs joins the next write, which starts as soon as that one ends; an item added while none
 * runs is written at once. So an item never waits for more than the write before its own, and
 * items that arrive together share one statement or transaction. A write may call `committed`
 * to let the next group's write begin before it ends (a transaction that committed and still
 * has after-commit work, such as dispatching its events), so transactions still commit one at
 * a time, in order; the write's end counts as `committed` when it did not call it. `add`
 * answers the item's own result (`write` answers one per item, in order), or throws its
 * group's error; with `oneByOneOnFailure`, a group whose write failed is written again one item
 * at a time, so that an item the database refuses fails its own caller only. With `spacingMs`, a
 * write starts no sooner than that after the one before it started: under a steady stream the
 * items of that time share one write, while an item that finds the writer idle long enough is
 * still written at once. The one-at-a-time writes of a refused group do not wait for it. With
 * `maxItems`, a write takes at most that many items; the rest wait for the next.
 */
export class GroupWriter<T, R> {
  private pending: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private writing = false;
  /** When the last write started (performance.now()), for `spacingMs`. */
  private lastStart = -Infinity;

  constructor(
    private readonly write: (items: T[], committed: () => void) => Promise<R[]>,
    private readonly options: { oneByOneOnFailure?: boolean; spacingMs?: number; maxItems?: number } = {},
  ) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) this.next();
    });
  }

  /** Starts the write of the pending items, unless none is pending; with `spacingMs`, not sooner than that after the last write started. */
  private next(): void {
    const wait = this.lastStart + (this.options.spacingMs ?? 0) - performance.now();
    if (wait > 0 && this.pending.length > 0) {
      this.writing = true;
      setTimeout(() => this.next(), wait);
      return;
    }
    const group = this.pending.splice(0, this.options.maxItems ?? this.pending.length);
    this.writing = group.length > 0;
    if (!this.writing) return;
    this.lastStart = performance.now();
    let released = false;
    const committed = () => {
      if (released) return;
      released = true;
      this.next();
    };
    void this.run(group, committed);
  }

  /** Writes one group and answers its items; the next group starts at `committed` or at the end. */
  private async run(group: typeof this.pending, committed: () => void): Promise<void> {
    try {
      const results = await this.write(
        group.map((entry) => entry.item),
        committed,
      );
      group.forEach((entry, i) => entry.resolve(results[i]));
    } catch (err) {
      if (this.options.oneByOneOnFailure && group.length > 1) await this.oneByOne(group);
      else for (const entry of group) entry.reject(err);
    }
    committed();
  }

  /** Writes each item of a failed group alone, answering each with its own result or error. */
  private async oneByOne(group: typeof this.pending): Promise<void> {
    await Promise.all(
      group.map(async (entry) => {
        try {
          const [result] = await this.write([entry.item], () => undefined);
          entry.resolve(result);
        } catch (err) {
          entry.reject(err);
        }
      }),
    );
  }
}
