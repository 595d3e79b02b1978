// The change feed (DESIGN.md 6.1): tuple, grant and definition changes in revision order, paged by revision, followable.
import type { ChangeEntry, ChangeLog } from '../../stores/ports/change-log.js';
import type { Revisions } from './revisions.js';

export interface Change {
  revision: number;
  kind: 'relation' | 'grant' | 'definition';
  op: 'create' | 'delete' | 'update';
  tuple?: string;
  definition?: { name: string; relations?: Record<string, string[]>; permissions?: Record<string, string[]>; version?: number };
  at: Date;
}
export interface ChangePage { changes: Change[]; next: number }

/**
 * A revision missing between two logged ones was taken by a write that failed, or by one still on its way whose
 * mark a reader dropped (ChangeLog.heal): it is passed over once the entry after it is this old, waited for until
 * then. `next` never moves past the last entry served, so a revision missing at the end is simply asked again.
 */
const GAP_GRACE_MS = 10_000;

/** The changes one log entry stands for (rebuild requests stand for none). */
export function changesOf(e: ChangeEntry): Change[] {
  const at = e.at;
  if (e.kind === 'tuples' || e.kind === 'grants') {
    const kind = e.kind === 'tuples' ? 'relation' : 'grant';
    // A mixed write names the tuples it deleted; all of an entry's changes share its revision, in the order written.
    const deleted = new Set(e.deleted ?? []);
    return (e.tuples ?? []).map((tuple) => ({
      revision: e.revision, kind, op: e.op === 'delete' || deleted.has(tuple) ? 'delete' as const : 'create' as const, tuple, at,
    }));
  }
  if (e.kind === 'definition') {
    const op = e.op === 'remove' ? 'delete' : e.created ? 'create' : 'update';
    return [{ revision: e.revision, kind: 'definition', op, definition: { name: e.type!, ...e.definition }, at }];
  }
  return [];
}

/** Entries read at a time while a page fills: an entry may hold up to a thousand tuples. */
const READ_BATCH = 20;
/** A frontier held below the latest revision this long is asked whether its marks are left over (ChangeLog.heal). */
const HEAL_AFTER_MS = 250;

export class ChangeFeed {
  private behindSince: number | null = null;

  constructor(private readonly log: ChangeLog, private readonly revisions: Revisions, private readonly now = () => Date.now()) {}

  /**
   * The settled revision. A mark left in the fast copy (a commit that failed after taking its revision, a settle
   * that failed) would hold it back for good where no consistent read heals it: the feed heals it too.
   */
  private async settled(): Promise<number> {
    const settled = await this.revisions.settled();
    const latest = await this.revisions.latest();
    if (settled >= latest) { this.behindSince = null; return settled; }
    this.behindSince ??= this.now();
    if (this.now() - this.behindSince > HEAL_AFTER_MS) {
      this.behindSince = this.now();
      await this.log.heal(latest).catch(() => undefined);
      return this.revisions.settled();
    }
    return settled;
  }

  /**
   * The changes after revision `after`, at most `limit` (an entry's changes are never split, so a page of one
   * entry may hold more), and the revision to ask from next. Only settled revisions are served, so a page never
   * passes a change that could still be written below it: nothing is skipped or repeated, across pages, restarts
   * and processes alike.
   */
  async page(after: number, limit: number): Promise<ChangePage> {
    const settled = await this.settled();
    const changes: Change[] = [];
    let next = after;
    // Read a few entries at a time until the page is full: never more tuples in memory than the page holds, plus one entry.
    for (;;) {
      const entries = await this.log.between(next, settled, Math.min(READ_BATCH, limit));
      for (const e of entries) {
        if (e.revision > next + 1 && this.now() - e.at.getTime() < GAP_GRACE_MS) return { changes, next };
        const more = changesOf(e);
        if (changes.length > 0 && changes.length + more.length > limit) return { changes, next };
        changes.push(...more);
        next = e.revision;
      }
      if (entries.length < Math.min(READ_BATCH, limit) || changes.length >= limit) return { changes, next };
    }
  }
}
