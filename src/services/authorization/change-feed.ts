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
    const op = e.op === 'delete' ? 'delete' : 'create';
    return (e.tuples ?? []).map((tuple) => ({ revision: e.revision, kind, op, tuple, at }));
  }
  if (e.kind === 'definition') {
    const op = e.op === 'remove' ? 'delete' : e.created ? 'create' : 'update';
    return [{ revision: e.revision, kind: 'definition', op, definition: { name: e.type!, ...e.definition }, at }];
  }
  return [];
}

export class ChangeFeed {
  constructor(private readonly log: ChangeLog, private readonly revisions: Revisions, private readonly now = () => Date.now()) {}

  /**
   * The changes after revision `after`, at most `limit` (an entry's changes are never split, so a page of one
   * entry may hold more), and the revision to ask from next. Only settled revisions are served, so a page never
   * passes a change that could still be written below it: nothing is skipped or repeated, across pages, restarts
   * and processes alike.
   */
  async page(after: number, limit: number): Promise<ChangePage> {
    const settled = await this.revisions.settled();
    const entries = await this.log.between(after, settled, limit);
    const changes: Change[] = [];
    let next = after;
    for (const e of entries) {
      if (e.revision > next + 1 && this.now() - e.at.getTime() < GAP_GRACE_MS) break;
      const more = changesOf(e);
      if (changes.length > 0 && changes.length + more.length > limit) break;
      changes.push(...more);
      next = e.revision;
    }
    return { changes, next };
  }
}
