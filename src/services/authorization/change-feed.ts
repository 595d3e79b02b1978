// The change feed (DESIGN.md 6.1): tuple, grant and definition changes in revision order, paged by revision, followable.
import { GAP_FINAL_MS, type ChangeEntry, type ChangeLog } from '../../stores/ports/change-log.js';
import type { Revisions } from './revisions.js';

export interface Change {
  revision: number;
  kind: 'relation' | 'grant' | 'definition';
  op: 'create' | 'delete' | 'update';
  tuple?: string;
  definition?: { name: string; relations?: Record<string, string[]>; permissions?: Record<string, string[]>; version?: number };
  at: Date;
}
export interface ChangePage {
  changes: Change[];
  next: number;
}

/** The changes one log entry stands for (rebuild requests stand for none). */
export function changesOf(e: ChangeEntry): Change[] {
  const at = e.at;
  if (e.kind === 'tuples' || e.kind === 'grants') {
    const kind = e.kind === 'tuples' ? 'relation' : 'grant';
    // A mixed write names the tuples it deleted; all of an entry's changes share its revision, in the order written.
    const deleted = new Set(e.deleted ?? []);
    return (e.tuples ?? []).map((tuple) => ({
      revision: e.revision,
      kind,
      op: e.op === 'delete' || deleted.has(tuple) ? 'delete' as const : 'create' as const,
      tuple,
      at,
    }));
  }
  if (e.kind === 'definition') {
    const op = e.op === 'remove' ? 'delete' : e.created ? 'create' : 'update';
    return [{ revision: e.revision, kind: 'definition', op, definition: { name: e.type!, ...e.definition }, at }];
  }
  return [];
}

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
    if (settled >= latest) {
      this.behindSince = null;
      return settled;
    }
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
    // Entries are read for what the page still lacks (ChangeLog.between stops once they weigh that much).
    // A missing revision is waited for until final (GAP_FINAL_MS); `next` never moves past the last entry served,
    // so a revision missing at the end is simply asked again.
    for (;;) {
      const entries = await this.log.between(next, settled, limit - changes.length);
      for (const e of entries) {
        if (e.revision > next + 1 && this.now() - e.at.getTime() < GAP_FINAL_MS) return { changes, next };
        const more = changesOf(e);
        if (changes.length > 0 && changes.length + more.length > limit) return { changes, next };
        changes.push(...more);
        next = e.revision;
      }
      if (entries.length === 0 || changes.length >= limit) return { changes, next };
    }
  }
}
