// In-memory twin of the MongoDB change log and its outbox, fed by a revision counter (the hub's twin of the Redis one).
import { CommitUnconfirmed, weightOf, type ChangeEntry, type ChangeLog, type PendingRecord, type RevisionCounter } from '../ports/change-log.js';
import { copy } from './copy.js';

const MAX_TRIES = 50;

/**
 * What the change log stores: the log, the outbox of pending entries, the durable mark of revisions taken, and the
 * revisions claimed as void (abandoned: no entry may be logged at them any more).
 */
export interface MemoryChangeLogState {
  log: Map<number, ChangeEntry>;
  pending: Map<number, PendingRecord>;
  mark: number;
  voids: Set<number>;
}
export const memoryChangeLogState = (): MemoryChangeLogState => ({ log: new Map(), pending: new Map(), mark: 0, voids: new Set() });

/** Entries in (after, upTo], oldest first, until `limit` entries or `limit` tuples' weight (as the MongoDB log pages). */
function between(inOrder: ChangeEntry[], after: number, upTo: number, limit: number): ChangeEntry[] {
  const out: ChangeEntry[] = [];
  let held = 0;
  for (const e of inOrder) {
    if (e.revision <= after || e.revision > upTo) continue;
    if (held >= limit || out.length >= limit) break;
    out.push(copy(e));
    held += weightOf(e);
  }
  return out;
}

/** As the MongoDB log commits: the revision's pending record and the entry, then the mark in the counter's set. */
async function commitEntry(state: MemoryChangeLogState, counter: RevisionCounter, entry: Omit<ChangeEntry, 'revision' | 'at'>, owner: string, keepPending: boolean) {
  const { log, pending } = state;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const revision = keepPending ? await counter.take() : await counter.next();
    const at = new Date();
    if (!log.has(revision) && !state.voids.has(revision) && !(keepPending && pending.has(revision))) {
      if (keepPending) pending.set(revision, { revision, owner, at });
      state.mark = Math.max(state.mark, revision);
      log.set(revision, { ...copy(entry), revision, at });
      if (keepPending) {
        await counter.confirm(revision).catch((e: unknown) => {
          throw new CommitUnconfirmed(revision, e);
        });
      }
      return revision;
    }
    await counter.raise(Math.max(revision, state.mark, ...log.keys(), ...state.voids, ...pending.keys()));
  }
  throw new Error('could not take a revision: the counter keeps colliding with stored revisions');
}

/**
 * The change log over `state` (shared by several logs to stand for processes, or for one whose counter was lost).
 * A revision the counter hands out twice is refused as the unique `_id` refuses it, and the counter raised past it.
 */
export function memoryChangeLog(counter: RevisionCounter, state = memoryChangeLogState()): ChangeLog {
  const { log, pending } = state;
  const highestStored = (from = 0) => Math.max(from, state.mark, ...log.keys(), ...state.voids, ...pending.keys());
  let seeded: Promise<void> | null = null;
  const seed = () => (seeded ??= counter.raise(highestStored()).catch((e: unknown) => {
    seeded = null;
    throw e;
  }));
  let rebuilding: Promise<void> | null = null;
  const inOrder = () => [...log.values()].sort((a, b) => a.revision - b.revision);

  return {
    async commit(entry, owner, opts = {}) {
      const keepPending = opts.pending !== false;
      await seed();
      return commitEntry(state, counter, entry, owner, keepPending);
    },
    async entries(revisions) {
      if (revisions.length === 0) return [];
      const wanted = new Set(revisions);
      return copy(inOrder().filter((e) => wanted.has(e.revision)));
    },
    async between(after, upTo, limit) {
      return between(inOrder(), after, upTo, limit);
    },
    async pending(limit) {
      const all = [...pending.values()].sort((a, b) => a.revision - b.revision);
      return copy(limit === undefined ? all : all.slice(0, limit));
    },
    async countPending() {
      return pending.size;
    },
    async oldestPending() {
      return pending.size ? Math.min(...pending.keys()) : null;
    },
    async done(revisions) {
      if (revisions.length === 0) return;
      for (const r of revisions) pending.delete(r);
      await counter.settle(revisions).catch(() => undefined);
    },
    async abandon(revisions) {
      const logged = revisions.filter((r) => log.has(r));
      const closed = revisions.filter((r) => !log.has(r));
      for (const r of closed) {
        state.voids.add(r);
        pending.delete(r);
      }
      if (closed.length) await counter.settle(closed).catch(() => undefined);
      return logged;
    },
    async release(revision) {
      await counter.settle([revision]);
    },
    async frontier() {
      const f = await counter.frontier();
      if (f !== null) return f;
      // The counter's set is not known complete: rebuilt from the durable outbox, and answered next time.
      rebuilding ??= (async () => {
        await counter.raise(highestStored());
        await counter.rebuild([...pending.keys()]);
      })().finally(() => {
        rebuilding = null;
      });
      await rebuilding.catch(() => undefined);
      return null;
    },
    async heal(upTo) {
      const marked = await counter.marked(upTo, 1000);
      await counter.dropMarks(marked.filter((m) => !pending.has(m.revision)).map((m) => m.member));
    },
    async latest() {
      await seed();
      const current = await counter.current();
      if (current > 0) return current;
      seeded = null;
      await seed();
      return counter.current();
    },
  };
}
