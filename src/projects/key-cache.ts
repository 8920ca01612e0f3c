import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { sha256 } from '../accounts/tokens';
import { ChangeListener } from '../db/change-listener';
import { GroupWriter } from '../db/group-writer';
import { findKeys, type KeyMatch } from './api-keys';

/** The channel Postgres notifies when a change to keys or projects commits (migration 1764770000000). */
export const KEYS_CHANGED_CHANNEL = 'herald_keys_changed';

/**
 * How long a kept key answers without a look-up, at most, even when no change is announced: the
 * bound on a stale answer should the listening connection die without the process noticing.
 */
const KEPT_MS = 10_000;
/** The most keys one process keeps; past it the oldest kept one is forgotten. */
const MAX_KEPT = 10_000;

/**
 * The projects of presented API keys, kept in memory while Postgres can tell this process that
 * they changed. A process keeps a key it found only while its own connection is proven to listen
 * on `herald_keys_changed` (ChangeListener), which every change to keys or projects notifies as it
 * commits (a trigger, so whichever process or statement made it); a notification forgets every kept key,
 * and a key found by a look-up that a notification overtook is not kept. Without a listening
 * connection (before it is up, after it is lost) every key is looked up, as is every key this
 * process does not keep: unknown keys are never kept. Look-ups of keys presented together
 * share one statement.
 */
export class KeyCache {
  private readonly kept = new Map<string, { match: KeyMatch; until: number }>();
  /** Advanced by every change: a look-up keeps its answer only when no change came during it. */
  private generation = 0;
  private readonly changes: ChangeListener;
  private readonly lookups: GroupWriter<string, KeyMatch | undefined>;

  constructor(dataSource: DataSource) {
    this.changes = new ChangeListener(dataSource, KEYS_CHANGED_CHANNEL, () => this.forget());
    this.lookups = new GroupWriter((keys) => findKeys(dataSource.manager, keys));
  }

  /** The project of a presented key, if any. */
  async find(key: string): Promise<KeyMatch | undefined> {
    const digest = sha256(key);
    if (this.changes.listening()) {
      const entry = this.kept.get(digest);
      if (entry && entry.until > performance.now()) return entry.match;
    }
    const generation = this.generation;
    const match = await this.lookups.add(key);
    if (match && generation === this.generation && this.changes.listening()) this.keep(digest, match);
    return match;
  }

  /** Whether this process keeps the keys it finds now (its listening connection is proven); starts listening when not. */
  keeping(): boolean {
    return this.changes.listening();
  }

  /** Forgets every kept key: for a change this process just committed, before it answers. */
  forget(): void {
    this.generation += 1;
    this.kept.clear();
  }

  private keep(digest: string, match: KeyMatch): void {
    this.kept.delete(digest);
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(digest, { match, until: performance.now() + KEPT_MS });
  }
}

const caches = new WeakMap<DataSource, KeyCache>();

/** The key cache of a data source: one per process and database. */
export function keyCacheOf(dataSource: DataSource): KeyCache {
  let cache = caches.get(dataSource);
  if (!cache) {
    cache = new KeyCache(dataSource);
    caches.set(dataSource, cache);
  }
  return cache;
}

/** Forgets the keys this process kept, after a change to keys or projects it committed itself. */
export function forgetKeys(dataSource: DataSource): void {
  caches.get(dataSource)?.forget();
}
