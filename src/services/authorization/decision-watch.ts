// The decision watch: subscribers hear when one of their decisions flips, computed from what each index batch changed.
import type { Logger } from '../../log.js';
import type { Invalidation } from '../../stores/ports/invalidation-bus.js';
import type { Checks } from './checks.js';
import type { Revisions } from './revisions.js';

export interface Decision {
  action: string;
  resource: string;
  allowed: boolean;
  revision: number;
}
export interface Watched {
  subject: string;
  action: string;
  resource: string;
  /** The answer the subscriber holds; a flip is a fresh answer that differs. */
  allowed: boolean;
  notify(d: Decision): void;
}

/** Checks asked at once while re-checking (the index groups concurrent checks into shared queries). */
const CONCURRENCY = 256;
const RETRY_MS = 500;

/**
 * Subscriptions are indexed by subject and by resource. An index batch reports the subjects and objects whose
 * decisions may have changed (their keys, rows or the flattened sets their rows refer to): only the subscriptions
 * naming one of them are asked again. A structural change (a definition, or a flat that too many rows refer to)
 * asks every subscription of this process again. Rounds do not overlap: what arrives during one is asked in the next.
 */
export class DecisionWatch {
  private readonly bySubject = new Map<string, Set<Watched>>();
  private readonly byResource = new Map<string, Set<Watched>>();
  private readonly all = new Set<Watched>();
  private dirty = new Set<Watched>();
  private everything = false;
  private revision: number | undefined;
  private running: Promise<unknown> | null = null;
  private failures = 0;
  private stopped = false;

  constructor(private readonly checks: Checks, private readonly revisions: Revisions, private readonly log: Logger) {}

  get size(): number {
    return this.all.size;
  }

  /** Watches `w` from now on, asking once more right away (a flip between its first answer and now is not lost). */
  add(w: Watched): () => void {
    this.all.add(w);
    index(this.bySubject, w.subject, w);
    index(this.byResource, w.resource, w);
    this.dirty.add(w);
    this.schedule();
    return () => this.remove(w);
  }

  private remove(w: Watched): void {
    this.all.delete(w);
    this.dirty.delete(w);
    unindex(this.bySubject, w.subject, w);
    unindex(this.byResource, w.resource, w);
  }

  /** Everything local was dropped (the bus lost its subscription, or this process was evicted): flips may have been missed. */
  onReset(): void {
    if (this.all.size === 0) return;
    this.everything = true;
    this.schedule();
  }

  /** Told of every invalidation, from this process's writes and from the others' through the bus. */
  onInvalidation(inv: Invalidation): void {
    if (this.all.size === 0) return;
    if (inv.revision !== undefined) this.revision = Math.max(this.revision ?? 0, inv.revision);
    if (inv.structure) this.everything = true;
    else {
      for (const k of inv.keys) {
        for (const w of this.bySubject.get(k) ?? []) this.dirty.add(w);
        for (const w of this.byResource.get(k) ?? []) this.dirty.add(w);
      }
    }
    this.schedule();
  }

  /**
   * No round starts after this, and the one running ends: with the stores closing, a round left waiting would fail and
   * retry every RETRY_MS for ever, keeping a stopped service's process alive.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped || this.running || (this.dirty.size === 0 && !this.everything)) return;
    this.running = this.round().catch((e: Error) => {
      this.failures++;
      this.log.warn({ err: e.message }, 'decision watch round failed');
    })
      // After a round whose checks failed (a store down), the next waits a little rather than spinning.
      .then(() => (this.failures ? new Promise((r) => setTimeout(r, RETRY_MS)) : undefined))
      .finally(() => {
        this.running = null;
        this.failures = 0;
        this.schedule();
      });
  }

  private async round(): Promise<void> {
    // Read before anything is taken off the lists: if it fails, the next round asks the same again.
    const settled = await this.revisions.settled();
    const asked = this.everything ? new Set(this.all) : this.dirty;
    this.everything = false;
    this.dirty = new Set();
    // The answers reflect at least every change up to both: the invalidations heard, and what had settled.
    const revision = Math.max(this.revision ?? 0, settled);
    this.revision = undefined;
    const list = [...asked];
    for (let i = 0; i < list.length; i += CONCURRENCY) {
      await Promise.all(list.slice(i, i + CONCURRENCY).map(async (w) => {
        let allowed: boolean;
        try {
          allowed = await this.checks.can(w.subject, w.action, w.resource);
        } catch {
          this.dirty.add(w); // asked again in the next round
          this.failures++;
          return;
        }
        if (!this.all.has(w) || allowed === w.allowed) return;
        w.allowed = allowed;
        w.notify({ action: w.action, resource: w.resource, allowed, revision });
      }));
    }
  }
}

function index(map: Map<string, Set<Watched>>, key: string, w: Watched) {
  let set = map.get(key);
  if (!set) map.set(key, set = new Set());
  set.add(w);
}

function unindex(map: Map<string, Set<Watched>>, key: string, w: Watched) {
  const set = map.get(key);
  set?.delete(w);
  if (set?.size === 0) map.delete(key);
}
