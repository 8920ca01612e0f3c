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
});
