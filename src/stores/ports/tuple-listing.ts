// Pages of the stored tuples for the admin list, from an index that keeps them in key order, with their count.

/** Counts that no index gives in one lookup are exact up to this many; past it, they are a lower bound. */
export const LIST_COUNT_CAP = 10_000;
/** Index entries a search matching more than LIST_COUNT_CAP tuples may read in key order to fill its page. */
export const LIST_SCAN_BUDGET = 20_000;
/** Every adapter's limits unless told (the twin's and Neo4j's alike). */
export const LIST_LIMITS = { cap: LIST_COUNT_CAP, budget: LIST_SCAN_BUDGET };

/** Which tuples, in which order: `subjectType` and `resourceType` match exactly, `search` is a case-insensitive substring. */
export interface TupleListQuery {
  subjectType?: string;
  resourceType?: string;
  search?: string;
  descending: boolean;
  skip: number;
  limit: number;
}

/**
 * The tuple texts of one page and how many match: `exact`, or at least `count` when counting them all would read
 * too much. `tooBroad` when a search matches too many tuples, too sparsely in this order, to find the page cheaply.
 */
export type TupleListPage = { keys: string[]; count: number; exact: boolean } | { tooBroad: true };

export interface TupleListing {
  /** Counts past `cap` are a lower bound; a search past `cap` matches reads at most `budget` entries for its page. */
  readonly limits: { cap: number; budget: number };
  list(q: TupleListQuery): Promise<TupleListPage>;
  /**
   * Fills the list fields of tuples projected before they existed, once (later calls only read a marker); `starting`
   * is called before a fill. How many tuples it filled.
   */
  prepare(starting?: () => void): Promise<number>;
  /**
   * Puts at most `limit` pending tuples into the search's text index, in key order (a write leaves them pending, so
   * its transaction skips the text index's cost); how many. A search finds pending tuples too, from a scan of them:
   * this keeps that scan short. A store may keep a tuple among the pending ones a while after it is indexed.
   */
  catchUp(limit: number): Promise<number>;
  /**
   * Whether a catch-up would find nothing to do (no pending tuple, and no mark left to take off), read without taking
   * a lock: an idle process asks this each pass instead of taking every index lease for a catch-up that does nothing.
   */
  idle(): Promise<boolean>;
}
