// The change log (the commit point of every write) and the revision counter that feeds it.

/**
 * One committed write. It names everything its appliers need (DESIGN.md section 5, write pipeline): the
 * tuples or grants it touched, or the type whose definition changed. Appliers derive the projection and
 * the index from MongoDB's current state for those names, so replaying an entry is always safe.
 */
export interface ChangeEntry {
  revision: number;
  kind: 'tuples' | 'grants' | 'definition' | 'reconstruct';
  /** `write`: tuples added and deleted at one revision (`/relations/write`); `deleted` says which went. */
  op: 'add' | 'delete' | 'write' | 'define' | 'remove' | 'soft' | 'hard';
  /** Tuple texts `S#r@O` (kind tuples or grants). */
  tuples?: string[];
  /** Of `tuples`, those a `write` deleted (the others it added). */
  deleted?: string[];
  /** The definition's type name (kind definition). */
  type?: string;
  /** What a `define` wrote, and whether the type had no definition before (the change feed shows both). */
  definition?: { relations: Record<string, string[]>; permissions: Record<string, string[]>; version: number };
  created?: boolean;
  at: Date;
}
/**
 * A revision missing between two logged ones was taken by a write that failed, or by one still on its way whose
 * mark a reader dropped (ChangeLog.heal): it is final (passed over by the feed, sealed as missing by the store) once
 * the entry after it is this old, waited for until then.
 */
export const GAP_FINAL_MS = 10_000;

/** How many changes an entry stands for when a read is bounded: its tuples, and one for any other entry. */
export const weightOf = (e: ChangeEntry): number => Math.max(1, e.tuples?.length ?? 0);

/** A committed entry that its appliers have not finished; `owner` is the process that wrote it. */
export interface PendingRecord {
  revision: number;
  owner: string;
  at: Date;
}

/**
 * The entry was logged and is pending, but the fast copy could not mark it (Redis went away): the commit fails, and
 * the caller knows the revision, so its recovery can take the entry at once. Nothing of the write was done past the log.
 */
export class CommitUnconfirmed extends Error {
  constructor(readonly revision: number, cause: unknown) {
    super(`revision ${revision} was logged but not marked pending in the fast copy: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = 'CommitUnconfirmed';
  }
}

/**
 * The commit failed after its pending record may have been written (MongoDB went away between the record and the log
 * entry, or answered neither way): `revision` is the one to close (ChangeLog.abandon), and `cause` what failed.
 */
export class CommitFailed extends Error {
  constructor(readonly revision: number, cause: unknown) {
    super(`the commit at revision ${revision} failed: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = 'CommitFailed';
  }
}

/** The change log and its outbox of pending entries. */
export interface ChangeLog {
  /**
   * Takes a fresh revision and records the entry: the commit point. Pending until `done`, so a crash
   * at any later step leaves the entry for the recovery loop. `pending: false` records history only. Throws
   * CommitUnconfirmed when only the fast copy's mark failed, CommitFailed when the log entry may be missing.
   */
  commit(entry: Omit<ChangeEntry, 'revision' | 'at'>, owner: string, opts?: { pending?: boolean }): Promise<number>;
  entries(revisions: number[]): Promise<ChangeEntry[]>;
  /**
   * Entries with revisions in (after, upTo], in revision order (the change feed): at most `limit`, and none more once
   * those read stand for `limit` changes (an entry of n tuples counts n, any other one), so a page's memory is bounded.
   */
  between(after: number, upTo: number, limit: number): Promise<ChangeEntry[]>;
  /** The oldest pending entries, in revision order (all of them without `limit`). */
  pending(limit?: number): Promise<PendingRecord[]>;
  /** How many entries are pending, without reading them. */
  countPending(): Promise<number>;
  /** The lowest pending revision, or null when every committed entry has been applied. */
  oldestPending(): Promise<number | null>;
  done(revisions: number[]): Promise<void>;
  /**
   * Closes pending revisions found without a log entry (a commit that failed, or a writer that died before its commit
   * point): each is claimed with a void, so an insert of its entry still on its way fails and that write takes another
   * revision, and its pending record is dropped. Returns those whose entry was logged after all: pending still, to apply.
   */
  abandon(revisions: number[]): Promise<number[]>;
  /**
   * Reads at this pending revision need not wait for its appliers (a definition change, answered from the projection
   * until its re-index is done): dropped from the fast copy's marks, kept in the outbox for the appliers.
   */
  release(revision: number): Promise<void>;
  /** The highest revision taken so far. */
  latest(): Promise<number>;
  /** The latest revision and the oldest pending one from the fast copy; null when it cannot tell (it is then rebuilt). */
  frontier(): Promise<Frontier | null>;
  /** Drops from the fast copy the revisions up to `upTo` that have no durable pending record. */
  heal(upTo: number): Promise<void>;
}

export interface Frontier {
  latest: number;
  oldest: number | null;
}

/** Hands out revisions; the change log's unique `_id` is the final word, so a lost counter only costs a retry. */
export interface RevisionCounter {
  /** A revision that is not marked pending (history only). */
  next(): Promise<number>;
  /** A revision marked pending. */
  take(): Promise<number>;
  /** After the durable pending record is written: marks it again, in case a rebuild of a lost set read before. */
  confirm(revision: number): Promise<void>;
  /** Unmarks applied revisions. */
  settle(revisions: number[]): Promise<void>;
  /** The latest revision and the oldest marked pending; null when the pending set is not known complete. */
  frontier(): Promise<Frontier | null>;
  /** Marks up to revision `upTo`, at most `limit`: each a take-mark or a confirmation of its revision. */
  marked(upTo: number, limit: number): Promise<Array<{ member: string; revision: number }>>;
  /** Removes these marks (members returned by `marked`). */
  dropMarks(members: string[]): Promise<void>;
  /** Marks these durable pending revisions and declares the set complete. */
  rebuild(revisions: number[]): Promise<void>;
  /** Raises the counter to at least `floor` (after a restart or a lost Redis). */
  raise(floor: number): Promise<void>;
  current(): Promise<number>;
}
