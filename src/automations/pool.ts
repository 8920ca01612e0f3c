/** Runs `work` on every item with at most `size` running at once; resolves when all have settled. */
export async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const runner = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(size, queue.length) }, runner));
}
