import { CommitOrderedWriter } from '../../src/sending/commit-ordered-writer';

/** A promise with its resolve, to hold a write at a chosen point. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CommitOrderedWriter', () => {
  it('groups items that arrive while a transaction is open and begins the next once the previous committed, before its after-commit work ends', async () => {
    const groups: number[][] = [];
    const commits = [gate(), gate(), gate()];
    const afterCommits = [gate(), gate(), gate()];
    const writer = new CommitOrderedWriter(async (items: number[], committed: () => void) => {
      const n = groups.push(items) - 1;
      await commits[n].promise;
      committed();
      await afterCommits[n].promise;
      return items.map((item) => item * 10);
    });
    const first = writer.add(1);
    const second = [writer.add(2), writer.add(3)];
    await tick();
    expect(groups).toEqual([[1]]);
    commits[0].open();
    await tick();
    // The first group committed but is still dispatching: the second group's transaction runs.
    expect(groups).toEqual([[1], [2, 3]]);
    const third = writer.add(4);
    await tick();
    expect(groups).toHaveLength(2);
    afterCommits[0].open();
    expect(await first).toBe(10);
    commits[1].open();
    afterCommits[1].open();
    expect(await Promise.all(second)).toEqual([20, 30]);
    commits[2].open();
    afterCommits[2].open();
    expect(await third).toBe(40);
    expect(groups).toEqual([[1], [2, 3], [4]]);
  });

  it("fails a group's items with its error, and the next group still runs", async () => {
    const groups: string[][] = [];
    const writer = new CommitOrderedWriter(async (items: string[]) => {
      groups.push(items);
      await tick();
      if (items.includes('bad')) throw new Error('rolled back');
      return items.map((item) => item.toUpperCase());
    });
    const first = writer.add('ok');
    const rest = [writer.add('bad'), writer.add('also')];
    const results = await Promise.allSettled([first, ...rest, new Promise((resolve) => setTimeout(resolve, 5)).then(() => writer.add('later'))]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      'OK',
      'rolled back',
      'rolled back',
      'LATER',
    ]);
    expect(groups).toEqual([['ok'], ['bad', 'also'], ['later']]);
  });
});
