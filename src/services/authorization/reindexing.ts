// Definition changes in force before their re-index is done: which types every process answers from the projection meanwhile.
import { performance } from 'node:perf_hooks';
import { typesDependingOn, type Model } from '../../engine/model.js';
import type { Invalidation, InvalidationBus } from '../../stores/ports/invalidation-bus.js';
import type { PendingReindex, ReindexState } from '../../stores/ports/reindex-state.js';

/** How often the shared list is read again, for a process that missed a bus message (it was down or evicted). */
export const REFRESH_MS = 1000;
/** A shared entry whose change-log entry is no longer pending is dropped only this long after it began. */
const PRUNE_AFTER_MS = 5000;

interface Known extends PendingReindex {
  seen: number;
}

/**
 * A definition change commits, saves the definition, then `begin`s here before it is acknowledged: the entry goes to
 * the shared list and, through the bus, to every live process, which from then on answers checks and lists on the
 * affected types from the projection under the new model (`ProjectionDecisions`). The re-index `end`s it once the
 * index holds the new model's rows. So the change is in force everywhere when its call returns, and reads do not
 * wait for the re-index.
 */
export class Reindexing {
  private readonly known = new Map<number, Known>();
  private affected = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly state: ReindexState, private readonly onBegun: () => void) {}

  private bus: InvalidationBus | null = null;
  /** The bus is built with this registry's `onInvalidation` as a listener, so it is handed over afterwards. */
  attach(bus: InvalidationBus): void {
    this.bus = bus;
  }

  /** Whether decisions on `type` may differ from the index now. */
  affects(type: string): boolean {
    return this.affected.size > 0 && this.affected.has(type);
  }

  get pending(): number {
    return this.known.size;
  }

  /** The types a change of `type` affects, under the model before and after it. */
  static affectedBy(type: string, before: Model, after: Model): string[] {
    return [...new Set([...typesDependingOn(before, type), ...typesDependingOn(after, type)])].sort();
  }

  /** Announces a re-index to every process; resolves once each of them answers the affected types from the projection. */
  async begin(revision: number, type: string, affected: string[]): Promise<void> {
    const r: PendingReindex = { revision, type, affected, at: Date.now() };
    await this.state.begin(r);
    // As a structure change: decision watchers ask again (now of the projection) and report what the change turned.
    if (this.bus) await this.bus.publish({ keys: [], structure: true, revision, reindex: { begun: r } });
    else this.add(r);
  }

  /** The index holds these definition changes: every process answers from it again. */
  async end(revisions: number[]): Promise<void> {
    if (revisions.length === 0) return;
    await this.state.end(revisions);
    if (this.bus) await this.bus.publish({ keys: [], structure: false, reindex: { ended: revisions } });
    else this.remove(revisions);
  }

  /** Every invalidation, this process's and the others' (the bus calls it before acknowledging). */
  onInvalidation(inv: Invalidation): void {
    if (inv.reindex?.begun) {
      this.add(inv.reindex.begun);
      this.onBegun();
    }
    if (inv.reindex?.ended) this.remove(inv.reindex.ended);
  }

  /** Reads the shared list: at start, after the bus lost messages, and every REFRESH_MS. */
  async refresh(): Promise<void> {
    const started = performance.now();
    const all = await this.state.all();
    const shared = new Set(all.map((r) => r.revision));
    let added = false;
    for (const r of all) {
      if (!this.known.has(r.revision)) {
        this.add(r);
        added = true;
      }
    }
    // Entries learnt from the bus after the read began may be missing from it; they stay.
    for (const [revision, k] of this.known) if (!shared.has(revision) && k.seen < started) this.known.delete(revision);
    this.recompute();
    if (added) this.onBegun();
  }

  /**
   * Drops shared entries whose change-log entry is no longer pending: their re-index finished but its `end` was lost
   * (Redis was down then). `pending` was listed at `listedAt` (ms since the epoch), complete up to revision `upTo`.
   */
  async prune(pending: ReadonlySet<number>, listedAt: number, upTo = Infinity): Promise<void> {
    // `pending` holds every pending revision up to `upTo` (the list may stop there).
    const stale = [...this.known.values()].filter((k) => k.revision <= upTo && !pending.has(k.revision) && k.at < listedAt - PRUNE_AFTER_MS);
    if (stale.length) await this.end(stale.map((k) => k.revision));
  }

  start(): void {
    const tick = () => {
      void this.refresh().catch(() => undefined).finally(() => {
        if (this.timer) {
          this.timer = setTimeout(tick, REFRESH_MS);
          this.timer.unref();
        }
      });
    };
    this.timer = setTimeout(tick, REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private add(r: PendingReindex): void {
    this.known.set(r.revision, { ...r, seen: performance.now() });
    this.recompute();
  }

  private remove(revisions: number[]): void {
    for (const r of revisions) this.known.delete(r);
    this.recompute();
  }

  private recompute(): void {
    this.affected = new Set([...this.known.values()].flatMap((k) => k.affected));
  }
}
