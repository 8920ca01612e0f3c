/**
 * Runs a transaction for many callers in groups, as GroupWriter (src/db/group-writer.ts) does,
 * but lets the next group's transaction begin as soon as the previous one commits (the write
 * calls `committed`), while what the previous one does after its commit (dispatching its
 * events) still runs. So transactions still commit one at a time, in order, and a group never
 * waits for another's after-commit work. `add` answers the item's own result (`write` answers
 * one per item, in order), or throws its group's error.
 */
export class CommitOrderedWriter<T, R> {
  private pending: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private open = false;

  constructor(private readonly write: (items: T[], committed: () => void) => Promise<R[]>) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.open) this.next();
    });
  }

  /** Starts the pending items' transaction, unless none is pending. */
  private next(): void {
    const group = this.pending.splice(0);
    this.open = group.length > 0;
    if (!this.open) return;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.next();
    };
    this.write(
      group.map((entry) => entry.item),
      release,
    ).then(
      (results) => {
        release();
        group.forEach((entry, i) => entry.resolve(results[i]));
      },
      (err: unknown) => {
        release();
        for (const entry of group) entry.reject(err);
      },
    );
  }
}
