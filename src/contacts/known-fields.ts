const TTL_MS = 60_000;
const MAX_ENTRIES = 100_000;

/**
 * The custom keys this process recently saw typed in `contact_fields`, so that a hot
 * path (every `/v1/track`) skips re-recording types it knows. Entries expire after a
 * minute, so a field deleted through another process is recorded again soon after.
 */
class KnownFields {
  private readonly seen = new Map<string, number>();

  /** The keys of `values` not known to be typed for the project. */
  unknown(projectId: string, keys: string[]): string[] {
    const now = Date.now();
    return keys.filter((key) => (this.seen.get(`${projectId}\u0000${key}`) ?? 0) < now);
  }

  remember(projectId: string, keys: string[]): void {
    if (this.seen.size + keys.length > MAX_ENTRIES) this.seen.clear();
    const until = Date.now() + TTL_MS;
    for (const key of keys) this.seen.set(`${projectId}\u0000${key}`, until);
  }

  forget(projectId: string, key: string): void {
    this.seen.delete(`${projectId}\u0000${key}`);
  }
}

/** The process-wide cache of typed fields. */
export const knownFields = new KnownFields();
