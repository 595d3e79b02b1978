// Decision cache, validated by epochs: a decision stored before a write that could change it is never served after.
import { typeOf } from '../../engine/ids.js';
import type { DecisionStore } from '../../stores/ports/decision-cache.js';
import type { InvalidationBus } from '../../stores/ports/invalidation-bus.js';
import type { LocalDecisions, LocalStamp } from './local-decisions.js';

/** What a fresh decision is stored under: the shared store's epochs and this process's local ones. */
export interface Stamp {
  shared: string;
  local: LocalStamp;
}

/** Shared-store writes of decisions a process leaves unanswered at most (about a kilobyte each while queued). */
export const MAX_PUTS_IN_FLIGHT = 256;

/**
 * An entry records the epochs of its subject, its object and the index structure it was computed under.
 * Writers bump those epochs after the index is updated and before the write returns; readers read the
 * epochs before asking the index. So an entry computed from an old index carries an old epoch and misses.
 * In front of the shared store, each process keeps decisions under local epochs that the bus moves on in every
 * live process before a write returns (see InvalidationBus), so a repeated check answers without a network hop.
 */
export class DecisionCache {
  constructor(private readonly shared: DecisionStore, private readonly local?: { decisions: LocalDecisions; bus: InvalidationBus }) {}

  /** Returns the cached decision (or null) and a stamp to store a fresh one with. */
  async lookup(s: string, a: string, o: string): Promise<{ hit: boolean | null; stamp: Stamp } | null> {
    const decisions = this.local?.decisions;
    const near = decisions?.get(s, a, o);
    if (near !== undefined) return { hit: near, stamp: { shared: '', local: null } };
    // Taken before the shared store is read: an invalidation arriving meanwhile makes the answer unstorable here.
    const local = decisions?.stamp(s, o) ?? null;
    try {
      const { hit, stamp } = await this.shared.lookup(s, a, o);
      if (hit !== null) decisions?.put(s, a, o, hit, local);
      return { hit, stamp: { shared: stamp, local } };
    } catch {
      return null;
    }
  }

  /**
   * The stamp a list of `type` objects for `subject` is valid under: it changes with the subject's keys,
   * any row of the type, and the structure (flats, definitions, rebuilds). Null when the shared store cannot say.
   */
  async listStamp(subject: string, type: string): Promise<string | null> {
    try {
      return await this.shared.listStamp(subject, type);
    } catch {
      return null;
    }
  }

  /**
   * Keeps a fresh decision here and, without the caller waiting for it, in the shared store: the check's answer does not
   * depend on that write (its stamp, not its timing, keeps it valid), so a cold check is one Redis round trip and one
   * index query, not two and one. Past MAX_PUTS_IN_FLIGHT writes still unanswered (a slow Redis), a decision is kept
   * here only, so checks cannot pile up writes in this process.
   */
  store(s: string, a: string, o: string, allowed: boolean, stamp: Stamp): void {
    this.local?.decisions.put(s, a, o, allowed, stamp.local);
    if (this.putsInFlight >= MAX_PUTS_IN_FLIGHT) return;
    this.putsInFlight++;
    // Through a promise even if an adapter throws at once: the count must come back down, and the check not fail.
    void Promise.resolve().then(() => this.shared.put(s, a, o, allowed, stamp.shared)).catch(() => undefined).finally(() => {
      this.putsInFlight--;
    });
  }

  private putsInFlight = 0;

  /** Shared-store writes not yet answered (a test looks). */
  get pendingPuts(): number {
    return this.putsInFlight;
  }

  /** Invalidates decisions about these subjects and objects (and lists of their types), and all of them when the structure changed. */
  async bump(objects: Iterable<string>, structure: boolean, revision?: number): Promise<void> {
    const unique = new Set(objects);
    await this.shared.bump([...unique], [...new Set([...unique].map(typeOf))], structure);
    // Every process drops its local decisions before the write that caused this returns (and its watchers hear of it).
    await this.local?.bus.publish({ keys: [...unique], structure, revision });
  }
}
