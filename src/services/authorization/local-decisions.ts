// Decisions held in this process under local epochs of their subject and object, so a repeated check needs no network hop.

/** Local epochs are counters in hashed slots: two ids sharing a slot only cost each other extra misses. */
const SLOTS = 1 << 16;

/** The local epochs a decision was computed under; null when nothing local may be stored. */
export type LocalStamp = readonly [number, number, number] | null;

interface Entry {
  allowed: boolean;
  es: number;
  eo: number;
  gen: number;
}

function slot(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) & (SLOTS - 1);
}

/**
 * A check takes the stamp before it reads anything, and stores its answer under that stamp; an invalidation
 * that arrives in between moves an epoch on, so the answer is refused or never served. Everything is served
 * only while `trusted()` says the invalidations of every write are still reaching this process.
 */
export class LocalDecisions {
  private readonly epochs = new Uint32Array(SLOTS);
  /** Moves on when the structure changed or trust was lost: every entry is then stale. */
  private gen = 0;
  private readonly entries = new Map<string, Entry>();
  private trusted: () => boolean = () => false;

  /** `max` entries at most (0 keeps none); the oldest go first. */
  constructor(private readonly max = 100_000) {}

  trustWhile(trusted: () => boolean): void {
    this.trusted = trusted;
  }

  stamp(s: string, o: string): LocalStamp {
    return this.max > 0 && this.trusted() ? [this.epochs[slot(s)]!, this.epochs[slot(o)]!, this.gen] : null;
  }

  get(s: string, a: string, o: string): boolean | undefined {
    if (this.entries.size === 0 || !this.trusted()) return undefined;
    const e = this.entries.get(`${s} ${a} ${o}`);
    if (!e) return undefined;
    if (e.gen === this.gen && e.es === this.epochs[slot(s)] && e.eo === this.epochs[slot(o)]) return e.allowed;
    return undefined;
  }

  put(s: string, a: string, o: string, allowed: boolean, stamp: LocalStamp): void {
    if (!stamp || !this.trusted()) return;
    const [es, eo, gen] = stamp;
    if (gen !== this.gen || es !== this.epochs[slot(s)] || eo !== this.epochs[slot(o)]) return; // invalidated meanwhile
    const key = `${s} ${a} ${o}`; // ids hold no space: one key per (subject, action, object)
    this.entries.delete(key);
    this.entries.set(key, { allowed, es, eo, gen });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  invalidate(ids: Iterable<string>, structure: boolean): void {
    for (const id of ids) this.epochs[slot(id)]! += 1;
    if (structure) this.reset();
  }

  reset(): void {
    this.gen += 1;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
