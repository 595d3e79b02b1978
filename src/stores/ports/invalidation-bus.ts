// The invalidation bus: a write returns only once every live process has dropped what it changed.
import type { PendingReindex } from './reindex-state.js';

/** What a write changed: objects whose decisions are stale, and whether the index structure changed (all of them are). */
export interface Invalidation {
  keys: string[];
  structure: boolean;
  /** The highest revision the change applied, when it came from the change log (decision watchers report it). */
  revision?: number;
  /** A definition change: its re-index began (the new model is in force) or these re-indexes ended. */
  reindex?: { begun?: PendingReindex; ended?: number[] };
}

export interface InvalidationBus {
  /**
   * Applies `inv` here, then in every other live process; resolves once none of them can serve what it
   * invalidates. Throws when the bus cannot be reached: the caller's write is then not acknowledged. After `stop` it
   * rejects at once with BusStopped: a member that left would otherwise wait out a whole lease for a set it is not in.
   */
  publish(inv: Invalidation): Promise<void>;
  /** Whether local state may be served now. */
  trusted(): boolean;
}

/** A publish on a member that stopped: the work that asked for it fails, and its entries stay pending for the next process. */
export class BusStopped extends Error {
  constructor() {
    super('the invalidation bus is stopped: this process is shutting down');
  }
}

/** A process's membership of the bus: it trusts local state only between `start` and `stop`. */
export interface InvalidationBusMember extends InvalidationBus {
  /** Starts renewing; resolves once this process is a member (or after a while if the bus does not answer). */
  start(waitMs?: number): Promise<void>;
  stop(): Promise<void>;
}
