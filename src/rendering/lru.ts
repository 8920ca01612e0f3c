/**
 * A least-recently-used cache bounded by entry count and by the total weight of its
 * entries (for compiled templates: the length of their sources).
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private totalWeight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}

  /** The value under `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores a value, evicting the least recently used entries beyond the bounds. */
  set(key: K, value: V, weight: number): void {
    const existing = this.entries.get(key);
    if (existing) {
      this.totalWeight -= existing.weight;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, weight });
    this.totalWeight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.totalWeight <= this.maxWeight) break;
      if (oldest === key) break;
      this.entries.delete(oldest);
      this.totalWeight -= entry.weight;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
