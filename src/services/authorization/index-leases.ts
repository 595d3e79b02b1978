// The leases index work runs under: one per partition of objects, and one for the structure (flats, definitions, rebuilds).
import { LeaseTimeout, type Lease } from '../../stores/ports/lease.js';

/** What a unit of index work needs to hold. */
export interface Scope {
  /** Partitions of the objects whose rows, edges and keys it writes. */
  partitions: number[];
  /** Flattened sets (and anything read across partitions to compute them): one unit at a time in all processes. */
  structure: boolean;
}

/** FNV-1a of an object key: which partition its rows, its projection edges (as a resource) and its tuples' keys live in. */
export function partitionOf(object: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < object.length; i++) h = Math.imul(h ^ object.charCodeAt(i), 0x01000193);
  return (h >>> 0) % partitions;
}

/**
 * Work on disjoint partitions runs at once, in different processes and in one. Deadlock-free by construction: a unit
 * that waits for leases takes them in one global order (structure first, then partitions ascending), and a unit that
 * holds leases out of that order only ever tried them without waiting (`tryMany`) and releases them soon. In a
 * process, each lease also has a local queue, so two of its units never share one.
 */
export class IndexLeases {
  /** Which leases a unit of this process holds or waits for: one Lease object serves one unit at a time. */
  private readonly local = new Map<Lease, Array<() => void>>();

  constructor(readonly structure: Lease, readonly partitions: Lease[]) {}

  /** Waits until no other unit of this process uses `lease`, then marks it used. */
  private async lock(lease: Lease): Promise<void> {
    const queue = this.local.get(lease);
    if (!queue) {
      this.local.set(lease, []);
      return;
    }
    await new Promise<void>((resolve) => queue.push(resolve));
  }

  private tryLock(lease: Lease): boolean {
    if (this.local.has(lease)) return false;
    this.local.set(lease, []);
    return true;
  }

  private unlock(lease: Lease): void {
    const next = this.local.get(lease)?.shift();
    if (next) next(); else this.local.delete(lease);
  }

  /** Gives leases back: to Redis, then to the next unit of this process waiting for them. */
  async release(leases: Lease[]): Promise<void> {
    await Promise.all(leases.map((l) => l.release()));
    leases.forEach((l) => this.unlock(l));
  }

  get count(): number {
    return this.partitions.length;
  }

  partitionOf(object: string): number {
    return partitionOf(object, this.partitions.length);
  }

  /** The leases of `scope` in the global order: structure first, then partitions ascending. */
  private ordered(scope: Scope): Lease[] {
    return [...(scope.structure ? [this.structure] : []), ...[...new Set(scope.partitions)].sort((a, b) => a - b).map((p) => this.partitions[p]!)];
  }

  /** Waits for every lease of `scope`, in the global order; on failure releases what it took. */
  async acquire(scope: Scope, waitMs: number): Promise<Lease[]> {
    const wanted = this.ordered(scope);
    const held: Lease[] = [];
    try {
      for (const lease of wanted) {
        await this.lock(lease);
        try {
          await lease.acquire(waitMs);
        } catch (e) {
          this.unlock(lease);
          throw e;
        }
        held.push(lease);
      }
      return held;
    } catch (e) {
      await this.release(held);
      throw e;
    }
  }

  /** Takes whichever of these partitions are free now, without waiting. */
  async tryMany(partitions: number[]): Promise<{ taken: number[]; leases: Lease[] }> {
    const taken: number[] = [];
    const leases: Lease[] = [];
    for (const p of [...new Set(partitions)].sort((a, b) => a - b)) {
      const lease = this.partitions[p]!;
      if (!this.tryLock(lease)) continue;
      if (await lease.tryAcquire().catch((e: unknown) => {
        this.unlock(lease);
        throw e;
      })) {
        taken.push(p);
        leases.push(lease);
      } else this.unlock(lease);
    }
    return { taken, leases };
  }

  /**
   * Every lease of `scope` if all are free now, else none. It never waits for one while holding another, and tries
   * them all at once (one round trip, not one per lease), so what it took it holds only that long when one is taken.
   */
  async tryAll(scope: Scope): Promise<Lease[] | null> {
    const wanted = this.ordered(scope);
    const local = wanted.filter((l) => this.tryLock(l));
    if (local.length < wanted.length) {
      local.forEach((l) => this.unlock(l));
      return null;
    }
    const tried = await Promise.allSettled(wanted.map((l) => l.tryAcquire()));
    const taken = wanted.filter((_, i) => tried[i]!.status === 'fulfilled' && (tried[i] as PromiseFulfilledResult<boolean>).value);
    wanted.filter((l) => !taken.includes(l)).forEach((l) => this.unlock(l));
    if (taken.length === wanted.length) return taken;
    await this.release(taken);
    const failed = tried.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return null;
  }

  /** Every lease, tried all at once again and again until `waitMs` has passed; null if they were never all free. */
  private async allWithin(waitMs: number): Promise<Lease[] | null> {
    const deadline = Date.now() + waitMs;
    for (let pause = 2;; pause = Math.min(pause * 2, 50)) {
      const held = await this.tryAll(this.everything());
      if (held || Date.now() + pause > deadline) return held;
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  /**
   * Runs `work` holding every lease, so no unit, rebuild or re-index writes Neo4j meanwhile; null when they are not all
   * free at once within `waitMs`. For work that must not take Neo4j locks beside a unit (the search catch-up). It tries
   * them all or none, again and again: taking them in order and waiting for each, it held the first ones while it
   * waited for the rest, and a write needing one of those waited behind it. `inTurn` does that still, for a caller
   * that has found them taken too often (units then wait behind it, once).
   */
  async whileAllHeld<T>(work: () => Promise<T>, waitMs: number, inTurn = false): Promise<T | null> {
    const held = inTurn ? await this.acquire(this.everything(), waitMs).catch((e: unknown) => {
      if (e instanceof LeaseTimeout) return null;
      throw e;
    }) : await this.allWithin(waitMs);
    if (!held) return null;
    try {
      return await work();
    } finally {
      await this.release(held);
    }
  }

  everything(): Scope {
    return { partitions: this.partitions.map((_, i) => i), structure: true };
  }
}

/** Every lease of a unit still ours (renewals kept up); otherwise another process may have interleaved. */
export const allHeld = (leases: Lease[]) => leases.every((l) => l.held());
