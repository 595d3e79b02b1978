// Contract of ChangeLog: commits at growing revisions, the outbox of pending entries, bounded feed reads, the frontier
// kept with the revision counter, and a counter that lost its state.
import { CommitUnconfirmed, type ChangeEntry, type ChangeLog, type RevisionCounter } from '../../src/stores/ports/change-log.js';
import { withStore, type Make, type Wrap } from './harness.js';

/**
 * The log, its counter, `reopen`: the same stored log under a counter that lost everything (a wiped Redis),
 * `withCounter`: the same stored log under its counter as `wrap` changes it (a Redis that fails some calls), and
 * `strand`: stores only a pending record at a revision taken from the counter, as a writer leaves it when it dies (or its
 * MongoDB fails) between that record and the log entry.
 */
export type ChangeLogMade = {
  counter: RevisionCounter;
  reopen(): Promise<ChangeLog>;
  withCounter(wrap: (c: RevisionCounter) => RevisionCounter): Promise<ChangeLog>;
  strand(revision: number, owner: string): Promise<void>;
};

const add = (...tuples: string[]): Omit<ChangeEntry, 'revision' | 'at'> => ({ kind: 'tuples', op: 'add', tuples });
const define = (type: string): Omit<ChangeEntry, 'revision' | 'at'> => ({ kind: 'definition', op: 'define', type,
  definition: { relations: { owner: ['User'] }, permissions: {}, version: 1 }, created: true });
const revs = (es: ChangeEntry[]) => es.map((e) => e.revision);
/** The frontier once the counter's set is known complete (the first ask may only rebuild it). */
const frontierOf = async (log: ChangeLog) => (await log.frontier()) ?? log.frontier();

export function changeLogContract(make: Make<ChangeLog, ChangeLogMade>) {
  const t = withStore(make);
  describe('ChangeLog', () => {
    commitsAndOutbox(t);
    abandoned(t);
    feedReads(t);
    frontierAndCounter(t);
  });
}

/** Commits, entries read back, and the outbox of pending entries. */
function commitsAndOutbox(t: Wrap<ChangeLog, ChangeLogMade>) {
  it('commits at growing revisions from 1 and reads the entries back', t(async ({ store }) => {
    expect(await store.latest()).toBe(0);
    const r1 = await store.commit(add('User:a#viewer@Doc:1'), 'p1');
    const r2 = await store.commit(define('Doc'), 'p1', { pending: false });
    expect([r1, r2]).toEqual([1, 2]);
    expect(await store.latest()).toBe(2);
    const entries = (await store.entries([r2, 99, r1])).sort((a, b) => a.revision - b.revision);
    expect(entries).toEqual([
      { revision: 1, kind: 'tuples', op: 'add', tuples: ['User:a#viewer@Doc:1'], at: expect.any(Date) },
      { revision: 2, ...define('Doc'), at: expect.any(Date) },
    ]);
    expect(await store.entries([])).toEqual([]);
  }));

  it('keeps committed entries pending until done, oldest first; history-only entries never are', t(async ({ store }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p1');
    await store.commit(add('User:b#viewer@Doc:1'), 'p1', { pending: false });
    const c = await store.commit(add('User:c#viewer@Doc:1'), 'p2');
    const d = await store.commit(add('User:d#viewer@Doc:1'), 'p1');
    expect(await store.pending()).toEqual([
      { revision: a, owner: 'p1', at: expect.any(Date) },
      { revision: c, owner: 'p2', at: expect.any(Date) },
      { revision: d, owner: 'p1', at: expect.any(Date) },
    ]);
    expect((await store.pending(2)).map((p) => p.revision)).toEqual([a, c]);
    expect(await store.countPending()).toBe(3);
    expect(await store.oldestPending()).toBe(a);
    await store.done([a, d]);
    await store.done([]);
    expect((await store.pending()).map((p) => p.revision)).toEqual([c]);
    expect(await store.countPending()).toBe(1);
    expect(await store.oldestPending()).toBe(c);
    await store.done([c]);
    expect(await store.oldestPending()).toBeNull();
    expect(await store.pending()).toEqual([]);
    // Done is about the outbox: the entries stay in the log.
    expect(await store.entries([a, c, d])).toHaveLength(3);
  }));
}

/** Pending records left without a log entry, closed by a void. */
function abandoned(t: Wrap<ChangeLog, ChangeLogMade>) {
  it('abandons a stranded revision: its record goes, and a write still on its way with it takes another revision', t(async ({ store, counter, strand, withCounter }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    const stranded = await counter.take();
    await strand(stranded, 'p');
    const b = await store.commit(add('User:b#viewer@Doc:1'), 'p');
    expect((await store.pending()).map((p) => p.revision)).toEqual([a, stranded, b]);
    expect(await store.abandon([stranded])).toEqual([]);
    expect((await store.pending()).map((p) => p.revision)).toEqual([a, b]);
    expect(await frontierOf(store)).toEqual({ latest: b, oldest: a });
    // The late writer holds the stranded revision: its entry cannot land there, so it commits under a fresh one.
    let handed = false;
    const late = await withCounter((c) => ({ ...c, take: async () => (handed ? c.take() : ((handed = true), stranded)) }));
    const again = await late.commit(add('User:late#viewer@Doc:1'), 'q');
    expect(again).toBeGreaterThan(b);
    expect(revs(await store.entries([stranded, again]))).toEqual([again]);
    expect(revs(await store.between(0, again, 10))).toEqual([a, b, again]);
    expect((await store.pending()).map((p) => p.revision)).toEqual([a, b, again]);
  }));

  it('abandons nothing that was logged: such a revision is returned and stays pending', t(async ({ store, counter, strand }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    const stranded = await counter.take();
    await strand(stranded, 'p');
    expect(await store.abandon([a, stranded])).toEqual([a]);
    expect((await store.pending()).map((p) => p.revision)).toEqual([a]);
    expect(revs(await store.entries([a]))).toEqual([a]);
    expect(await store.abandon([])).toEqual([]);
    // Twice is once.
    expect(await store.abandon([stranded])).toEqual([]);
  }));
}

/** Reads of the change feed. */
function feedReads(t: Wrap<ChangeLog, ChangeLogMade>) {
  it('reads the feed in (after, upTo], in revision order, bounded by entries and by the tuples they carry', t(async ({ store }) => {
    await store.commit(add('User:a#viewer@Doc:1'), 'p');
    await store.commit(add('User:a#viewer@Doc:2', 'User:a#viewer@Doc:3', 'User:a#viewer@Doc:4'), 'p');
    await store.commit(define('Doc'), 'p');
    await store.commit(add('User:b#viewer@Doc:1'), 'p');
    expect(revs(await store.between(0, 4, 100))).toEqual([1, 2, 3, 4]);
    expect(revs(await store.between(1, 3, 100))).toEqual([2, 3]);
    // The entry that reaches the bound is the last one: 1 + 3 tuples stand for more than 2.
    expect(revs(await store.between(0, 4, 2))).toEqual([1, 2]);
    expect(revs(await store.between(2, 4, 2))).toEqual([3, 4]);
    expect(revs(await store.between(0, 4, 1))).toEqual([1]);
    expect(await store.between(3, 3, 10)).toEqual([]);
    expect(await store.between(4, 2, 10)).toEqual([]);
    expect((await store.between(2, 3, 10))[0]).toEqual({ revision: 3, ...define('Doc'), at: expect.any(Date) });
  }));

  it('passes over a revision taken by a write that never logged it', t(async ({ store, counter }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    const lost = await counter.next();
    const b = await store.commit(add('User:b#viewer@Doc:1'), 'p');
    expect([a, lost, b]).toEqual([1, 2, 3]);
    expect(revs(await store.between(0, 3, 10))).toEqual([1, 3]);
    expect(revs(await store.entries([1, 2, 3]))).toEqual([1, 3]);
    expect(await store.latest()).toBe(3);
  }));
}

/** The frontier kept with the counter, and a counter that lost its state or fell behind. */
function frontierAndCounter(t: Wrap<ChangeLog, ChangeLogMade>) {
  it('reports the frontier: the latest revision and the oldest pending one still marked', t(async ({ store }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    const b = await store.commit(define('Doc'), 'p');
    const c = await store.commit(add('User:c#viewer@Doc:1'), 'p', { pending: false });
    expect(await frontierOf(store)).toEqual({ latest: c, oldest: a });
    await store.done([a]);
    expect(await frontierOf(store)).toEqual({ latest: c, oldest: b });
    // A released revision no longer holds readers back, but stays in the outbox for its appliers.
    await store.release(b);
    expect(await frontierOf(store)).toEqual({ latest: c, oldest: null });
    expect((await store.pending()).map((p) => p.revision)).toEqual([b]);
  }));

  it('a commit whose mark in the fast copy fails throws CommitUnconfirmed with its revision: the entry is logged and pending', t(async ({ store, withCounter }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    const broken = await withCounter((c) => ({
      ...c,
      confirm: async () => {
        throw new Error('Connection is closed.');
      },
    }));
    const failed = await broken.commit(add('User:b#viewer@Doc:1'), 'p').then(() => null, (e: unknown) => e);
    expect(failed).toBeInstanceOf(CommitUnconfirmed);
    expect((failed as CommitUnconfirmed).revision).toBe(a + 1);
    expect((await store.entries([a + 1])).map((e) => e.tuples)).toEqual([['User:b#viewer@Doc:1']]);
    expect((await store.pending()).map((p) => p.revision)).toEqual([a, a + 1]);
  }));

  it('heals the frontier of marks no pending entry backs (a writer that died after taking its revision)', t(async ({ store, counter }) => {
    await frontierOf(store);
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    const orphan = await counter.take();
    const b = await store.commit(add('User:b#viewer@Doc:1'), 'p');
    await store.done([a]);
    expect(await frontierOf(store)).toEqual({ latest: b, oldest: orphan });
    await store.heal(b);
    expect(await frontierOf(store)).toEqual({ latest: b, oldest: b });
    await store.done([b]);
    expect(await frontierOf(store)).toEqual({ latest: b, oldest: null });
  }));

  it('rebuilds what a lost counter knew: the latest revision, the pending set, and no revision used twice', t(async ({ store, reopen }) => {
    const a = await store.commit(add('User:a#viewer@Doc:1'), 'p');
    await store.commit(add('User:b#viewer@Doc:1'), 'p', { pending: false });
    const c = await store.commit(add('User:c#viewer@Doc:1'), 'p', { pending: false });
    await store.done([a]);
    const pendingOne = await store.commit(add('User:d#viewer@Doc:1'), 'p');
    const again = await reopen();
    expect(await again.latest()).toBe(pendingOne);
    expect(await frontierOf(again)).toEqual({ latest: pendingOne, oldest: pendingOne });
    const next = await again.commit(add('User:e#viewer@Doc:1'), 'p');
    expect(next).toBe(pendingOne + 1);
    expect(revs(await again.between(0, next, 100))).toEqual([a, a + 1, c, pendingOne, next]);
  }));

  it('commits from a counter behind the log under a fresh revision instead of overwriting an entry', t(async ({ store, reopen }) => {
    for (let i = 0; i < 3; i++) await store.commit(add(`User:u${i}#viewer@Doc:1`), 'p', { pending: false });
    // Two logs over one store: the second's counter stops at 3 while the first goes on to 4.
    const behind = await reopen();
    expect(await behind.latest()).toBe(3);
    expect(await store.commit(add('User:first#viewer@Doc:1'), 'p')).toBe(4);
    expect(await behind.commit(add('User:late#viewer@Doc:1'), 'q')).toBe(5);
    const [four, five] = await store.between(3, 5, 10);
    expect([four?.tuples, five?.tuples]).toEqual([['User:first#viewer@Doc:1'], ['User:late#viewer@Doc:1']]);
    expect((await store.pending()).map((p) => [p.revision, p.owner])).toEqual([[4, 'p'], [5, 'q']]);
  }));
}
