// The index store's contract, run against the in-memory twin and the Neo4j adapter: record-level cases here, answers
// against the engine's evaluator in index-answers.contract.ts. Each test writes a generation of its own and makes it live.
import type { IndexStore, ObjectRows } from '../../src/stores/ports/index-store.js';
import { indexAnswersContract } from './index-answers.contract.js';

export interface IndexHarness { index: IndexStore; cleanup(): Promise<void> }

let nextGen = 1_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
/** A generation no other test uses. */
export const freshGen = () => ++nextGen;

const sorted = (xs: string[]) => [...xs].sort();
const rowsOf = (obj: string, type: string, hash: string, rows: Array<Partial<ObjectRows['rows'][number]> & { action: string }>): ObjectRows =>
  ({ obj, type, hash, rows: rows.map((r) => ({ public: false, keys: [], refs: [], ...r })) });

export function indexStoreContract(make: () => Promise<IndexHarness>) {
  let h: IndexHarness;
  beforeAll(async () => { h = await make(); });
  afterAll(async () => { await h.cleanup(); });
  /** A fresh generation, made live. */
  const liveGen = async () => {
    const gen = freshGen();
    await h.index.meta();
    await h.index.switchGeneration(gen);
    return gen;
  };

  indexGenerationsContract(() => h, liveGen);
  indexRowsContract(() => h, liveGen);
  indexFlatsContract(() => h, liveGen);
  indexListsContract(() => h, liveGen);
  indexAnswersContract(() => h.index, liveGen);
}

/** Generations: the meta node, reads of the live one only, drops. */
function indexGenerationsContract(harness: () => IndexHarness, liveGen: () => Promise<number>) {
  describe('index store: generations', () => {
    it('meta reports the live generation and the one being built; a switch ends the build', async () => {
      const first = await harness().index.meta();
      expect(first.gen).toBeGreaterThanOrEqual(1);
      const gen = freshGen();
      await harness().index.setBuilding(gen);
      expect(await harness().index.meta()).toEqual({ gen: first.gen, building: gen });
      await harness().index.switchGeneration(gen);
      expect(await harness().index.meta()).toEqual({ gen, building: null });
      await harness().index.setBuilding(null);
      expect((await harness().index.meta()).building).toBeNull();
    });

    it('reads see only the live generation; writes to another one stay apart until it is switched to', async () => {
      const a = await liveGen();
      const b = freshGen();
      await harness().index.syncHolds(a, [{ subject: 'User:u', key: 'Doc:d#viewer', present: true }]);
      await harness().index.putRows(a, [rowsOf('Doc:d', 'Doc', 'h1', [{ action: 'view', keys: ['Doc:d#viewer'] }])]);
      await harness().index.putRows(b, [rowsOf('Doc:d', 'Doc', 'h2', [{ action: 'view', public: true }])]);
      expect(await harness().index.check('User:x', 'Doc:d', 'view')).toEqual({ rowExists: true, allowed: false });
      expect(await harness().index.check('User:u', 'Doc:d', 'view')).toEqual({ rowExists: true, allowed: true });
      await harness().index.switchGeneration(b);
      expect(await harness().index.check('User:x', 'Doc:d', 'view')).toEqual({ rowExists: true, allowed: true });
      expect(await harness().index.holds('User:u', 'Doc:d#viewer')).toBe(false);
      expect((await harness().index.records('User:u', 'Doc:d', 'view')).subjectIndex).toBeNull();
      expect(await harness().index.flattened(b, ['Doc:d'])).toEqual(new Set());
    });

    it('dropGeneration deletes every node of one generation (rows, flats, keys, deps, actors) and counts them', async () => {
      const gen = await liveGen();
      const other = freshGen();
      // 1 row, keys k1 k2, flat F (referred), flat G with key k3 and deps D1 D2, actor U: 1 + 3 + 2 + 2 + 1 = 9 nodes.
      await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view', keys: ['k1', 'k2'], refs: ['Folder:f#view'] }])]);
      await harness().index.putFlats(gen, [{ id: 'Folder:g#view', obj: 'Folder:g', public: false, keys: ['k3'], deps: ['D1', 'D2'], hash: 'x' }]);
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: 'k1', present: true }]);
      await harness().index.putRows(other, [rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view', public: true }])]);
      expect(await harness().index.dropGeneration(gen)).toBe(9);
      expect(await harness().index.check('User:u', 'Doc:d', 'view')).toEqual({ rowExists: false, allowed: false });
      expect(await harness().index.records('User:u', 'Doc:d', 'view')).toEqual({ gen, objectIndex: null, subjectIndex: null });
      expect(await harness().index.flattened(gen, ['Folder:g'])).toEqual(new Set());
      expect(await harness().index.dropGeneration(gen)).toBe(0);
      await harness().index.switchGeneration(other);
      expect(await harness().index.check('User:u', 'Doc:d', 'view')).toEqual({ rowExists: true, allowed: true });
      expect(await harness().index.dropGeneration(other)).toBe(1);
    });
  });
}

/** Rows: rewrites by hash, deletes, checks and records. */
function indexRowsContract(harness: () => IndexHarness, liveGen: () => Promise<number>) {
  describe('index store: rows and checks', () => {
    it('putRows rewrites an object only when its hash or its number of rows changed, and returns those objects', async () => {
      const gen = await liveGen();
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: 'Doc:d#owner', present: true }]);
      expect(await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h1', [{ action: 'view', keys: ['Doc:d#owner'] }])])).toEqual(['Doc:d']);
      // Same hash, same count: left alone even though the content differs (the hash is the content's word).
      expect(await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h1', [{ action: 'view' }])])).toEqual([]);
      expect((await harness().index.check('User:u', 'Doc:d', 'view')).allowed).toBe(true);
      // Same hash, another count: rewritten.
      expect(await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h1', [{ action: 'view' }, { action: 'edit', keys: ['Doc:d#owner'] }])])).toEqual(['Doc:d']);
      expect((await harness().index.check('User:u', 'Doc:d', 'view')).allowed).toBe(false);
      expect((await harness().index.check('User:u', 'Doc:d', 'edit')).allowed).toBe(true);
      // No rows any more: the old ones go, and the object counts as changed; none before and none now: unchanged.
      expect(await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h2', []), rowsOf('Doc:e', 'Doc', 'h', [])])).toEqual(['Doc:d']);
      expect(await harness().index.check('User:u', 'Doc:d', 'edit')).toEqual({ rowExists: false, allowed: false });
    });

    it('deleteRows removes every row of the objects named, in that generation only', async () => {
      const gen = await liveGen();
      const other = freshGen();
      const both = [rowsOf('Doc:a', 'Doc', 'h', [{ action: 'view', public: true }, { action: 'edit' }]), rowsOf('Doc:b', 'Doc', 'h', [{ action: 'view', public: true }])];
      await harness().index.putRows(gen, both);
      await harness().index.putRows(other, both);
      await harness().index.deleteRows(gen, ['Doc:a', 'Doc:missing']);
      expect((await harness().index.check('User:u', 'Doc:a', 'view')).rowExists).toBe(false);
      expect((await harness().index.check('User:u', 'Doc:a', 'edit')).rowExists).toBe(false);
      expect(await harness().index.check('User:u', 'Doc:b', 'view')).toEqual({ rowExists: true, allowed: true });
      await harness().index.switchGeneration(other);
      expect((await harness().index.check('User:u', 'Doc:a', 'view')).rowExists).toBe(true);
    });

    it('check: a public row, a public referred flat, a key of the row or of a referred flat that the subject holds', async () => {
      const gen = await liveGen();
      await harness().index.putFlats(gen, [
        { id: 'Folder:pub#view', obj: 'Folder:pub', public: true, keys: [], deps: ['Folder:pub'], hash: '1' },
        { id: 'Folder:f#view', obj: 'Folder:f', public: false, keys: ['Folder:f#viewer', 'Team:t#member'], deps: ['Folder:f'], hash: '1' },
      ]);
      await harness().index.syncHolds(gen, [
        { subject: 'User:own', key: 'Doc:d#owner', present: true }, { subject: 'User:team', key: 'Team:t#member', present: true },
        { subject: 'User:other', key: 'Doc:x#owner', present: true },
      ]);
      await harness().index.putRows(gen, [
        rowsOf('Doc:p', 'Doc', 'h', [{ action: 'view', public: true }]),
        rowsOf('Doc:q', 'Doc', 'h', [{ action: 'view', refs: ['Folder:pub#view'] }]),
        rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view', keys: ['Doc:d#owner'], refs: ['Folder:f#view', 'Folder:never#view'] }]),
      ]);
      const can = async (s: string, o: string) => (await harness().index.check(s, o, 'view')).allowed;
      expect([await can('User:nobody', 'Doc:p'), await can('User:nobody', 'Doc:q')]).toEqual([true, true]);
      expect([await can('User:own', 'Doc:d'), await can('User:team', 'Doc:d')]).toEqual([true, true]);
      expect([await can('User:other', 'Doc:d'), await can('User:nobody', 'Doc:d')]).toEqual([false, false]);
      expect(await harness().index.check('User:own', 'Doc:d', 'edit')).toEqual({ rowExists: false, allowed: false });
      expect(await harness().index.check('User:own', 'Doc:zzz', 'view')).toEqual({ rowExists: false, allowed: false });
    });

    it('records show the row with its referred flats (one never written: empty, not public) and the subject\'s keys', async () => {
      const gen = await liveGen();
      await harness().index.putFlats(gen, [{ id: 'Folder:f#view', obj: 'Folder:f', public: true, keys: ['a', 'b'], deps: ['Folder:f'], hash: '1' }]);
      await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view', keys: ['k2', 'k1'], refs: ['Folder:f#view', 'Folder:g#view'] }])]);
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: 'k1', present: true }, { subject: 'User:u', key: 'z', present: true }]);
      const r = await harness().index.records('User:u', 'Doc:d', 'view');
      expect(r.gen).toBe(gen);
      expect({ ...r.objectIndex!, keys: sorted(r.objectIndex!.keys), refs: [...r.objectIndex!.refs].sort((x, y) => x.id.localeCompare(y.id)).map((f) => ({ ...f, keys: sorted(f.keys) })) })
        .toEqual({ id: 'Doc:d#view', public: false, keys: ['k1', 'k2'], refs: [{ id: 'Folder:f#view', public: true, keys: ['a', 'b'] }, { id: 'Folder:g#view', public: false, keys: [] }] });
      expect({ ...r.subjectIndex!, keys: sorted(r.subjectIndex!.keys) }).toEqual({ subject: 'User:u', keys: ['k1', 'z'] });
      // An actor whose keys all went is still known, with none.
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: 'k1', present: false }, { subject: 'User:u', key: 'z', present: false }]);
      expect((await harness().index.records('User:u', 'Doc:x', 'view'))).toEqual({ gen, objectIndex: null, subjectIndex: { subject: 'User:u', keys: [] } });
    });
  });
}

/** Flats and holds: rewrites by hash, the questions the indexer asks, held keys. */
function indexFlatsContract(harness: () => IndexHarness, liveGen: () => Promise<number>) {
  describe('index store: flats and holds', () => {
    it('putFlats writes only flats whose hash changed, and returns their ids', async () => {
      const gen = await liveGen();
      const flat = { id: 'Folder:f#view', obj: 'Folder:f', public: false, keys: ['k'], deps: ['Folder:f', 'Folder:up'], hash: '1' };
      expect(await harness().index.putFlats(gen, [flat, { ...flat, id: 'Folder:f#edit', deps: ['Folder:f'], hash: '2' }])).toEqual(['Folder:f#view', 'Folder:f#edit']);
      await harness().index.putRows(gen, [rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view', refs: ['Folder:f#view'] }])]);
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: 'k', present: true }]);
      // Unchanged hash: the content given is ignored.
      expect(await harness().index.putFlats(gen, [{ ...flat, keys: [], public: true }])).toEqual([]);
      expect(await harness().index.check('User:x', 'Doc:d', 'view')).toEqual({ rowExists: true, allowed: false });
      expect((await harness().index.check('User:u', 'Doc:d', 'view')).allowed).toBe(true);
      // Changed: keys and deps replaced; the rows referring to it follow without being rewritten.
      expect(await harness().index.putFlats(gen, [{ ...flat, keys: ['k2'], deps: ['Folder:f'], hash: '3' }])).toEqual(['Folder:f#view']);
      expect((await harness().index.check('User:u', 'Doc:d', 'view')).allowed).toBe(false);
      expect(sorted(await harness().index.flatsDependingOn(gen, ['Folder:up']))).toEqual([]);
      expect(sorted(await harness().index.flatsDependingOn(gen, ['Folder:f']))).toEqual(['Folder:f']);
    });

    it('flattened, flatsDependingOn and rowsReferring answer per generation', async () => {
      const gen = freshGen();
      const other = freshGen();
      await harness().index.putFlats(gen, [
        { id: 'Folder:a#view', obj: 'Folder:a', public: false, keys: [], deps: ['Folder:a', 'Folder:b'], hash: '1' },
        { id: 'Folder:c#view', obj: 'Folder:c', public: false, keys: [], deps: ['Folder:c', 'Folder:b'], hash: '1' },
      ]);
      await harness().index.putRows(gen, [
        rowsOf('Doc:1', 'Doc', 'h', [{ action: 'view', refs: ['Folder:a#view'] }, { action: 'edit', refs: ['Folder:a#view', 'Folder:c#view'] }]),
        rowsOf('Doc:2', 'Doc', 'h', [{ action: 'view', refs: ['Folder:c#view'] }]),
        rowsOf('Doc:3', 'Doc', 'h', [{ action: 'view', refs: ['Folder:z#view'] }]),
      ]);
      expect(await harness().index.flattened(gen, ['Folder:a', 'Folder:b', 'Folder:c', 'Folder:z'])).toEqual(new Set(['Folder:a', 'Folder:c']));
      expect(sorted(await harness().index.flatsDependingOn(gen, ['Folder:b']))).toEqual(['Folder:a', 'Folder:c']);
      expect(sorted(await harness().index.flatsDependingOn(gen, ['Folder:a', 'Doc:1']))).toEqual(['Folder:a']);
      expect(sorted(await harness().index.rowsReferring(gen, ['Folder:a#view'], 10))).toEqual(['Doc:1']);
      expect(sorted(await harness().index.rowsReferring(gen, ['Folder:a#view', 'Folder:c#view', 'Folder:z#view'], 10))).toEqual(['Doc:1', 'Doc:2', 'Doc:3']);
      const two = await harness().index.rowsReferring(gen, ['Folder:a#view', 'Folder:c#view', 'Folder:z#view'], 2);
      expect(two).toHaveLength(2);
      expect(two.every((o) => ['Doc:1', 'Doc:2', 'Doc:3'].includes(o))).toBe(true);
      expect(await harness().index.flattened(other, ['Folder:a'])).toEqual(new Set());
      expect(await harness().index.flatsDependingOn(other, ['Folder:b'])).toEqual([]);
      expect(await harness().index.rowsReferring(other, ['Folder:a#view'], 10)).toEqual([]);
    });

    it('syncHolds adds and removes the keys a subject holds, idempotently', async () => {
      const gen = await liveGen();
      const k = 'Doc:d#viewer';
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: k, present: true }, { subject: 'User:u', key: k, present: true }]);
      expect(await harness().index.holds('User:u', k)).toBe(true);
      expect(await harness().index.listHolders(k, 'User', 0, 10)).toEqual(['User:u']);
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: k, present: false }, { subject: 'User:v', key: k, present: false }]);
      expect(await harness().index.holds('User:u', k)).toBe(false);
      expect(await harness().index.holds('User:v', k)).toBe(false);
      expect(await harness().index.countHolders(k, 'User', '')).toEqual({ count: 0, below: 0, has: false });
      await harness().index.syncHolds(gen, [{ subject: 'User:u', key: k, present: true }]);
      expect(await harness().index.holds('User:u', k)).toBe(true);
    });
  });
}

function indexListsContract(harness: () => IndexHarness, liveGen: () => Promise<number>) {
  describe('index store: lists, paging and counts', () => {
    it('listObjects: distinct objects in id order from held keys, flats, public rows and public flats; skip, limit, pivots', async () => {
      const { index } = harness();
      const gen = await liveGen();
      await index.putFlats(gen, [
        { id: 'Folder:f#view', obj: 'Folder:f', public: false, keys: ['Folder:f#viewer'], deps: ['Folder:f'], hash: '1' },
        { id: 'Folder:p#view', obj: 'Folder:p', public: true, keys: [], deps: ['Folder:p'], hash: '1' },
      ]);
      await index.syncHolds(gen, [{ subject: 'User:u', key: 'Doc:b#owner', present: true }, { subject: 'User:u', key: 'Folder:f#viewer', present: true }]);
      await index.putRows(gen, [
        rowsOf('Doc:b', 'Doc', 'h', [{ action: 'view', keys: ['Doc:b#owner'], refs: ['Folder:f#view'] }, { action: 'edit', keys: ['Doc:b#owner'] }]),
        rowsOf('Doc:a', 'Doc', 'h', [{ action: 'view', refs: ['Folder:f#view'] }]),
        rowsOf('Doc:e', 'Doc', 'h', [{ action: 'view', public: true }]),
        rowsOf('Doc:c', 'Doc', 'h', [{ action: 'view', refs: ['Folder:p#view'] }]),
        rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view' }]),
        rowsOf('Sheet:s', 'Sheet', 'h', [{ action: 'view', public: true, keys: ['Doc:b#owner'] }]),
      ]);
      expect(await index.listObjects('User:u', 'view', 'Doc', 0, 100)).toEqual(['Doc:a', 'Doc:b', 'Doc:c', 'Doc:e']);
      expect(await index.listObjects('User:nobody', 'view', 'Doc', 0, 100)).toEqual(['Doc:c', 'Doc:e']);
      expect(await index.listObjects('User:u', 'edit', 'Doc', 0, 100)).toEqual(['Doc:b']);
      expect(await index.listObjects('User:u', 'view', 'Doc', 1, 2)).toEqual(['Doc:b', 'Doc:c']);
      expect(await index.listObjects('User:u', 'view', 'Doc', 3, 5)).toEqual(['Doc:e']);
      expect(await index.listObjects('User:u', 'view', 'Doc', 0, 0)).toEqual([]);
      expect(await index.countObjects('User:u', 'view', 'Doc', 'Doc:c')).toEqual({ count: 4, below: 2, has: true });
      expect(await index.countObjects('User:u', 'view', 'Doc', 'Doc:d')).toEqual({ count: 4, below: 3, has: false });
      expect(await index.countObjects('User:u', 'view', 'Doc', '')).toEqual({ count: 4, below: 0, has: false });
      expect(await index.countObjects('User:u', 'share', 'Doc', 'Doc:a')).toEqual({ count: 0, below: 0, has: false });
    });

    it('listSubjects: holders of the row\'s keys and its flats\' keys, of one type, in id order; the count says whether it is public', async () => {
      const { index } = harness();
      const gen = await liveGen();
      await index.putFlats(gen, [{ id: 'Folder:f#view', obj: 'Folder:f', public: false, keys: ['Folder:f#viewer'], deps: ['Folder:f'], hash: '1' }]);
      await index.syncHolds(gen, ['User:c', 'User:a', 'Team:t'].map((subject) => ({ subject, key: 'Folder:f#viewer', present: true })));
      await index.syncHolds(gen, ['User:b', 'User:a', 'Users:x'].map((subject) => ({ subject, key: 'Doc:d#owner', present: true })));
      await index.putRows(gen, [
        rowsOf('Doc:d', 'Doc', 'h', [{ action: 'view', keys: ['Doc:d#owner'], refs: ['Folder:f#view'] }, { action: 'edit', public: true }]),
      ]);
      expect(await index.listSubjects('Doc:d', 'view', 'User', 0, 10)).toEqual(['User:a', 'User:b', 'User:c']);
      expect(await index.listSubjects('Doc:d', 'view', 'User', 1, 1)).toEqual(['User:b']);
      expect(await index.listSubjects('Doc:d', 'view', 'Team', 0, 10)).toEqual(['Team:t']);
      expect(await index.countSubjects('Doc:d', 'view', 'User', 'User:b')).toEqual({ count: 3, below: 1, has: true, public: false });
      expect(await index.countSubjects('Doc:d', 'edit', 'User', 'User:b')).toEqual({ count: 0, below: 0, has: false, public: true });
      expect(await index.countSubjects('Doc:none', 'view', 'User', 'User:b')).toEqual({ count: 0, below: 0, has: false, public: false });
      expect(await index.listSubjects('Doc:none', 'view', 'User', 0, 10)).toEqual([]);
    });

    it('listHeld and listHolders: a relation\'s own key, by type prefix and relation suffix, paged and counted', async () => {
      const { index } = harness();
      const gen = await liveGen();
      await index.syncHolds(gen, [
        ...['Doc:c#viewer', 'Doc:a#viewer', 'Doc:b#reviewer', 'Docs:x#viewer', 'Doc:b#viewer!'].map((key) => ({ subject: 'User:u', key, present: true })),
        ...['User:z', 'User:y', 'Team:t', 'Users:q'].map((subject) => ({ subject, key: 'Doc:a#viewer', present: true })),
      ]);
      expect(await index.listHeld('User:u', 'Doc', 'viewer', 0, 10)).toEqual(['Doc:a', 'Doc:c']);
      expect(await index.listHeld('User:u', 'Doc', 'viewer', 1, 10)).toEqual(['Doc:c']);
      expect(await index.countHeld('User:u', 'Doc', 'viewer', 'Doc:b')).toEqual({ count: 2, below: 1, has: false });
      expect(await index.countHeld('User:nobody', 'Doc', 'viewer', 'Doc:b')).toEqual({ count: 0, below: 0, has: false });
      expect(await index.listHolders('Doc:a#viewer', 'User', 0, 10)).toEqual(['User:u', 'User:y', 'User:z']);
      expect(await index.listHolders('Doc:a#viewer', 'User', 1, 1)).toEqual(['User:y']);
      expect(await index.countHolders('Doc:a#viewer', 'User', 'User:y')).toEqual({ count: 3, below: 1, has: true });
      expect(await index.holds('User:u', 'Doc:b#viewer')).toBe(false);
      expect(await index.holds('User:u', 'Doc:b#viewer!')).toBe(true);
    });
  });
}
