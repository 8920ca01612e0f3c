import { GroupWriter } from '../../src/db/group-writer';

/** A write that the test finishes by hand, remembering the groups it was given. */
function manualWrite() {
  const groups: number[][] = [];
  const finishers: ((fail?: Error) => void)[] = [];
  const write = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      groups.push(items);
      finishers.push((fail) => (fail ? reject(fail) : resolve(items.map((item) => `done ${item}`))));
    });
  return { groups, write, finish: (fail?: Error) => finishers.shift()!(fail) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A promise with its resolve, to hold a write at a chosen point. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('GroupWriter', () => {
  it('writes an item at once when no write runs, and answers its own result', async () => {
    const { groups, write, finish } = manualWrite();
    const writer = new GroupWriter(write);
    const first = writer.add(1);
    expect(groups).toEqual([[1]]);
    finish();
    await expect(first).resolves.toBe('done 1');
  });

  it('groups the items added while a write runs into the next write, started as soon as it ends', async () => {
    const { groups, write, finish } = manualWrite();
    const writer = new GroupWriter(write);
    const results = [writer.add(1), writer.add(2), writer.add(3)];
    expect(groups).toEqual([[1]]);
    finish();
    await tick();
    expect(groups).toEqual([[1], [2, 3]]);
    finish();
    await expect(Promise.all(results)).resolves.toEqual(['done 1', 'done 2', 'done 3']);
    const later = writer.add(4);
    expect(groups).toEqual([[1], [2, 3], [4]]);
    finish();
    await expect(later).resolves.toBe('done 4');
  });

  it('fails only the items of the write that failed', async () => {
    const { groups, write, finish } = manualWrite();
    const writer = new GroupWriter(write);
    const first = writer.add(1);
    const second = writer.add(2);
    finish(new Error('database down'));
    await expect(first).rejects.toThrow('database down');
    await tick();
    expect(groups).toEqual([[1], [2]]);
    finish();
    await expect(second).resolves.toBe('done 2');
  });

  it('begins the next group once a write calls committed, before that write ends, still one commit at a time', async () => {
    const groups: number[][] = [];
    const commits = [gate(), gate(), gate()];
    const afterCommits = [gate(), gate(), gate()];
    const writer = new GroupWriter(async (items: number[], committed: () => void) => {
      const n = groups.push(items) - 1;
      await commits[n].promise;
      committed();
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
    // The first group committed but its after-commit work runs: the second group's write runs.
    expect(groups).toEqual([[1], [2, 3]]);
    const third = writer.add(4);
    await tick();
    // The second group has not committed: the third waits, though the first group has ended.
    afterCommits[0].open();
    expect(await first).toBe(10);
    await tick();
    expect(groups).toHaveLength(2);
    commits[1].open();
    afterCommits[1].open();
    expect(await Promise.all(second)).toEqual([20, 30]);
    commits[2].open();
    afterCommits[2].open();
    expect(await third).toBe(40);
    expect(groups).toEqual([[1], [2, 3], [4]]);
  });

  it('fails a group that committed early with its error, and the groups after it still run', async () => {
    const groups: string[][] = [];
    const writer = new GroupWriter(async (items: string[], committed: () => void) => {
      groups.push(items);
      await tick();
      committed();
      if (items.includes('bad')) throw new Error('after-commit work failed');
      return items.map((item) => item.toUpperCase());
    });
    const early = [writer.add('ok'), writer.add('bad'), writer.add('also')];
    // 'later' arrives once the failing group has begun, so it belongs to the group after it.
    while (groups.length < 2) await tick();
    const results = await Promise.allSettled([...early, writer.add('later')]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      'OK',
      'after-commit work failed',
      'after-commit work failed',
      'LATER',
    ]);
    expect(groups).toEqual([['ok'], ['bad', 'also'], ['later']]);
  });

  it('with oneByOneOnFailure, writes a refused group again one item at a time, so that only the refused item fails', async () => {
    const groups: string[][] = [];
    const writer = new GroupWriter(
      async (items: string[]) => {
        groups.push(items);
        await tick();
        if (items.includes('bad')) throw new Error('refused');
        return items.map((item) => item.toUpperCase());
      },
      { oneByOneOnFailure: true },
    );
    const first = writer.add('first');
    const rest = [writer.add('ok'), writer.add('bad'), writer.add('also')];
    const results = await Promise.allSettled([first, ...rest]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual(['FIRST', 'OK', 'refused', 'ALSO']);
    expect(groups).toEqual([['first'], ['ok', 'bad', 'also'], ['ok'], ['bad'], ['also']]);
  });

  it('with spacingMs, starts a write no sooner than that after the last one started, and an item that finds it idle long enough at once', async () => {
    const { groups, write, finish } = manualWrite();
    const writer = new GroupWriter(write, { spacingMs: 200 });
    const startedAt: number[] = [];
    const started = () => startedAt.push(performance.now());
    const first = writer.add(1);
    started();
    const rest = [writer.add(2), writer.add(3)];
    finish();
    await first;
    await tick();
    // The first write ended at once, but the next waits out the spacing with both items.
    expect(groups).toEqual([[1]]);
    const later = writer.add(4);
    while (groups.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    started();
    expect(groups).toEqual([[1], [2, 3, 4]]);
    expect(startedAt[1] - startedAt[0]).toBeGreaterThanOrEqual(190);
    finish();
    await expect(Promise.all([...rest, later])).resolves.toEqual(['done 2', 'done 3', 'done 4']);
    await new Promise((resolve) => setTimeout(resolve, 220));
    const idle = writer.add(5);
    expect(groups).toEqual([[1], [2, 3, 4], [5]]);
    finish();
    await expect(idle).resolves.toBe('done 5');
  });

  it('with spacingMs, counts the spacing from the last write\'s start: after a write longer than it, an item is written at once', async () => {
    const { groups, write, finish } = manualWrite();
    const writer = new GroupWriter(write, { spacingMs: 100 });
    const first = writer.add(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    finish();
    await first;
    const next = writer.add(2);
    expect(groups).toEqual([[1], [2]]);
    finish();
    await expect(next).resolves.toBe('done 2');
  });
});
