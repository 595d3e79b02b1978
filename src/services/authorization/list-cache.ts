// In-process cache of whole sorted object lists, so paging through "what may S read" asks the index once.
/**
 * Entries carry the stamp (see DecisionCache.listStamp) they were computed under and are served only while
 * the stamp is unchanged, so a list is never older than the writes acknowledged before the read began.
 * Memory is bounded by the total number of ids held; the least recently used lists go first.
 */
/** An entry costs its ids and one more for itself: empty lists (a subject with no access) are bounded too. */
const weight = (objects: string[]) => objects.length + 1;

export class ListCache {
  private readonly entries = new Map<string, { stamp: string; at: number; objects: string[] }>();
  private held = 0;

  /** `maxAgeMs` bounds how long a list is trusted even if an epoch bump was lost. */
  constructor(private readonly maxIds = 1_000_000, private readonly maxAgeMs = 300_000) {}

  get(key: string, stamp: string): string[] | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.stamp !== stamp || Date.now() - e.at > this.maxAgeMs) {
      this.held -= weight(e.objects);
      return undefined;
    }
    this.entries.set(key, e); // most recently used last
    return e.objects;
  }

  put(key: string, stamp: string, objects: string[]): void {
    if (objects.length > this.maxIds / 4) return; // one huge list would evict everything else
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= weight(old.objects);
    }
    this.entries.set(key, { stamp, at: Date.now(), objects });
    this.held += weight(objects);
    for (const [k, e] of this.entries) {
      if (this.held <= this.maxIds) break;
      this.entries.delete(k);
      this.held -= weight(e.objects);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
