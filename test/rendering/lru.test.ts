import { LruCache } from '../../src/rendering/lru';

describe('LruCache', () => {
  it('evicts the least recently used entry beyond the entry bound', () => {
    const cache = new LruCache<string, number>(2, 100);
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3, 1);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    expect(cache.size).toBe(2);
  });

  it('evicts beyond the weight bound but keeps an entry heavier than the bound on its own', () => {
    const cache = new LruCache<string, number>(10, 10);
    cache.set('a', 1, 6);
    cache.set('b', 2, 6);
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, 2]);
    cache.set('huge', 3, 50);
    expect([cache.get('b'), cache.get('huge')]).toEqual([undefined, 3]);
  });

  it('replaces the value of a key already stored', () => {
    const cache = new LruCache<string, number>(2, 10);
    cache.set('a', 1, 5);
    cache.set('a', 2, 5);
    cache.set('b', 3, 5);
    expect([cache.get('a'), cache.get('b'), cache.size]).toEqual([2, 3, 2]);
  });
});
