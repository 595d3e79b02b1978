// The change log and its outbox in MongoDB: `change_log` keeps every entry, `pending` the ones not applied yet.
import type { Collection, Db } from 'mongodb';
import { CommitFailed, CommitUnconfirmed, type ChangeEntry, type ChangeLog, type PendingRecord, type RevisionCounter } from '../ports/change-log.js';
import { changeBlocks, VOID } from './change-blocks.js';
import { COLLECTIONS } from './connection.js';
import { isDuplicateKey } from './duplicate-key.js';
import { highestLogged } from './highest-logged.js';
import { revisionMark } from './revision-mark.js';

const MAX_TRIES = 50;
/** Voids `abandon` inserts at once. */
const ABANDON_PARALLEL = 25;

/**
 * Revisions come from a shared counter (Redis INCR: one atomic round trip, whatever the number of writers
 * and processes) and are claimed by inserting `pending` with `_id: revision`. FerretDB v1 has no atomic
 * findAndModify (FerretDB issue 3040), but a unique `_id` insert is atomic everywhere, so a revision is
 * never used twice even if the counter is lost or lags: a duplicate raises the counter past the highest
 * revision stored and takes the next one. Revisions only grow, because the counter only ever rises.
 */
export function mongoChangeLog(db: Db, counter: RevisionCounter): ChangeLog {
  // Seeded on first use, so the service starts (and reports not ready) while Redis is down.
  let seeded: Promise<void> | null = null;
  const seed = () => (seeded ??= seedRevisions(db, counter).catch((e: unknown) => {
    seeded = null;
    throw e;
  }));
  const log = db.collection<ChangeEntry & { _id: number }>(COLLECTIONS.changes);
  const pending = db.collection<{ _id: number; owner: string; at: Date }>(COLLECTIONS.pending);
  let rebuilding: Promise<void> | null = null;
  const blocks = changeBlocks(log, db.collection(COLLECTIONS.changeBlocks));
  const marks = revisionMark(db);
  // FerretDB v1 scans the log for an `_id` range (blocks of point reads there); MongoDB answers it from `_id_`.
  let ferret: Promise<boolean> | null = null;
  const isFerret = () => (ferret ??= db.command({ buildInfo: 1 }).then((b) => 'ferretdbVersion' in b, (e: unknown) => {
    ferret = null;
    throw e;
  }));

  return {
    async commit(entry, owner, opts = {}) {
      await seed();
      return commitEntry({ db, counter, marks, log, pending }, entry, owner, opts.pending !== false);
    },
    async entries(revisions) {
      if (revisions.length === 0) return [];
      // A void (a revision a reader claimed as failed) has nothing to apply.
      return (await log.find({ _id: { $in: revisions } }).toArray()).filter((d) => (d.kind as string) !== VOID).map(({ _id, ...e }) => ({ ...e, revision: _id }));
    },
    async between(after, upTo, limit) {
      if (upTo <= after) return [];
      return (await isFerret()) ? blocks.between(after, upTo, limit) : blocks.ranged(after, upTo, limit);
    },
    async pending(limit) {
      const cursor = pending.find({}).sort({ _id: 1 });
      return (await (limit === undefined ? cursor : cursor.limit(limit)).toArray()).map((p): PendingRecord => ({ revision: p._id, owner: p.owner, at: p.at }));
    },
    countPending: () => pending.countDocuments({}),
    async oldestPending() {
      const first = await pending.find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(1).toArray();
      return first[0]?._id ?? null;
    },
    async done(revisions) {
      if (revisions.length === 0) return;
      await pending.deleteMany({ _id: { $in: revisions } });
      // A mark left behind only makes readers wait until `heal` drops it.
      await counter.settle(revisions).catch(() => undefined);
    },
    abandon: (revisions) => abandon(log, pending, counter, revisions),
    async release(revision) {
      // Only the fast copy: if Redis loses it, its rebuild from the durable markers makes readers wait for the re-index.
      await counter.settle([revision]);
    },
    async frontier() {
      const f = await counter.frontier();
      if (f !== null) return f;
      // Redis lost the set (or never had it): rebuild it from the durable markers. Writers mark their revision
      // again after their MongoDB insert (`confirm`), so one inserted after the rebuild read is not missed.
      rebuilding ??= (async () => {
        // The counter went with the set: raised again first, so the set is never complete beside a counter gone back.
        await seedRevisions(db, counter);
        const all = await pending.find({}, { projection: { _id: 1 } }).toArray();
        await counter.rebuild(all.map((p) => p._id));
      })().finally(() => {
        rebuilding = null;
      });
      await rebuilding.catch(() => undefined);
      return null;
    },
    async heal(upTo) {
      const marked = await counter.marked(upTo, 1000);
      if (marked.length === 0) return;
      // A mark without a durable pending record is left over (applied, or a commit that failed), or belongs to
      // a writer between its take and its insert: that one marks again before acknowledging (`confirm`).
      const revisions = [...new Set(marked.map((m) => m.revision))];
      const busy = new Set((await pending.find({ _id: { $in: revisions } }, { projection: { _id: 1 } }).toArray()).map((p) => p._id));
      // A confirmation seen here was added after its pending record: without the record now, it was applied.
      await counter.dropMarks(marked.filter((m) => !busy.has(m.revision)).map((m) => m.member));
    },
    async latest() {
      await seed();
      const current = await counter.current();
      if (current > 0) return current;
      // Redis lost the counter: seed it again, or reads waiting for earlier revisions would wait in vain.
      seeded = null;
      await seed();
      return counter.current();
    },
  };
}

interface CommitDeps {
  db: Db;
  counter: RevisionCounter;
  marks: ReturnType<typeof revisionMark>;
  log: Collection<ChangeEntry & { _id: number }>;
  pending: Collection<{ _id: number; owner: string; at: Date }>;
}

/** Logs one entry under a new revision, taking another while the one taken is already stored. */
async function commitEntry({ db, counter, marks, log, pending }: CommitDeps, entry: Omit<ChangeEntry, 'revision' | 'at'>, owner: string, keepPending: boolean): Promise<number> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    // Marked pending in Redis as it is taken, before anything can acknowledge it (see `frontier`).
    const revision = keepPending ? await counter.take() : await counter.next();
    const at = new Date();
    let claimed = false;
    try {
      // The pending marker goes first: any entry in the log is pending until its appliers finish. The durable
      // high-water mark is raised beside it (no added wait), so every logged revision is at or below it.
      await Promise.all([
        keepPending ? pending.insertOne({ _id: revision, owner, at }).then(() => {
          claimed = true;
        }) : undefined,
        marks.raise(revision),
      ]);
      await log.insertOne({ _id: revision, revision, ...entry, at });
      if (keepPending) {
        await counter.confirm(revision).catch((e: unknown) => {
          throw new CommitUnconfirmed(revision, e);
        });
      }
      return revision;
    } catch (e) {
      // The pending record may be stored without its entry: the caller can close the revision at once (abandon).
      if (!isDuplicateKey(e)) throw keepPending && !(e instanceof CommitUnconfirmed) ? new CommitFailed(revision, e) : e;
      // A duplicate is a counter gone back, or a reader's void over a revision it judged failed (change-blocks.ts):
      // either way this write takes a new revision, and the acknowledgement carries that one.
      // Our marker for a revision the log already holds (a counter that went back) must not linger. Its mark
      // in Redis stays: it may be another writer's, and readers drop marks without a pending record (`heal`).
      if (claimed) await pending.deleteOne({ _id: revision });
      await counter.raise(await highestStored(db, revision));
    }
  }
  throw new Error('could not take a revision: the counter keeps colliding with stored revisions');
}

/**
 * Claims each revision with a void (as a feed reader claims a final gap, change-blocks.ts), then drops the pending
 * records of those it claimed or a reader had voided; a duplicate that is a real entry was logged after all.
 */
async function abandon(log: CommitDeps['log'], pending: CommitDeps['pending'], counter: RevisionCounter, revisions: number[]): Promise<number[]> {
  const logged: number[] = [];
  const closed: number[] = [];
  const at = new Date();
  // A few at a time, as a feed reader claims gaps: a pass may hand over thousands.
  for (let i = 0; i < revisions.length; i += ABANDON_PARALLEL) {
    const lost: number[] = [];
    await Promise.all(
      revisions.slice(i, i + ABANDON_PARALLEL).map((r) =>
        log.insertOne({ _id: r, revision: r, kind: VOID, at } as unknown as ChangeEntry & { _id: number }).then(() => closed.push(r), (e: unknown) => {
          if (!isDuplicateKey(e)) throw e;
          lost.push(r);
        })
      ),
    );
    // Point reads (FerretDB v1 scans the log for an `$in`): a void already there is closed too, an entry is logged.
    for (const d of await Promise.all(lost.map((r) => log.findOne({ _id: r }, { projection: { kind: 1 } })))) {
      if (d) ((d.kind as string) === VOID ? closed : logged).push(d._id);
    }
  }
  if (closed.length) {
    await pending.deleteMany({ _id: { $in: closed } });
    await counter.settle(closed).catch(() => undefined);
  }
  return logged;
}

/**
 * The highest revision MongoDB holds: the durable mark (raised with each write before its log insert, so at or above
 * every logged revision), the log past it (entries logged before the mark existed), or pending (the outbox, small).
 */
async function highestStored(db: Db, from = 0): Promise<number> {
  const pendingTop = db.collection<{ _id: number }>(COLLECTIONS.pending).find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray();
  const [mark, pending] = await Promise.all([revisionMark(db).read(), pendingTop]);
  const logged = await highestLogged(db.collection(COLLECTIONS.changes), Math.max(from, mark));
  return Math.max(mark, logged, pending[0]?._id ?? 0);
}

/** Seeds the counter from what MongoDB holds, so a fresh or wiped Redis never hands out a used revision. */
export async function seedRevisions(db: Db, counter: RevisionCounter): Promise<void> {
  await counter.raise(await highestStored(db));
}
