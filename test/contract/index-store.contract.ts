// The index store's contract, run against the in-memory twin and the Neo4j adapter: record-level cases here, answers
// against the engine's evaluator in index-answers.contract.ts. Each test starts from an empty projection and writes
// flats into a generation of its own.
import { parseTupleText, typeOf, type Tuple } from '../../src/engine/ids.js';
import { indexPlan, validity } from '../../src/engine/index-plan.js';
import { Model } from '../../src/engine/model.js';
import type { GraphStore } from '../../src/stores/ports/graph.js';
import type { FlatRecord, IndexStore } from '../../src/stores/ports/index-store.js';
import { indexAnswersContract } from './index-answers.contract.js';
import { indexShapesContract } from './index-shapes.contract.js';

/** The index and the projection it reads, and a way to empty the projection (flats live in their generations). */
export interface IndexHarness {
  index: IndexStore;
  graph: GraphStore;
  wipe(): Promise<void>;
  cleanup(): Promise<void>;
}

let nextGen = 1_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
/** A generation no other test uses. */
export const freshGen = () => ++nextGen;

const MODEL = new Model([
  { name: 'Folder', relations: { viewer: ['User', 'Team'], parent: ['Folder'] }, permissions: { view: ['viewer', 'parent->view'], open: ['*'] } },
  {
    name: 'Doc',
    relations: { owner: ['User'], folder: ['Folder'], team: ['Team'], reader: ['User', 'Team'] },
    permissions: { view: ['owner', 'reader', 'folder->view', 'team->member'], edit: ['owner'], share: ['edit'] },
  },
]);
const plan = (s: string, o: string, a: string) => indexPlan(MODEL, typeOf(s), typeOf(o), a);
const tuple = (text: string) => parseTupleText(text) as Tuple;
const flat = (id: string, f: Partial<FlatRecord> = {}): FlatRecord => {
  const at = id.lastIndexOf('#');
  return { id, obj: id.slice(0, at), perm: id.slice(at + 1), public: false, keys: [], deps: [id.slice(0, at)], hash: '1', ...f };
};
const sorted = (xs: string[]) => [...xs].sort();

/** Makes a fresh generation live in the index `index()` gives, and answers it. */
export const liveGeneration = (index: () => IndexStore) => async () => {
  const gen = freshGen();
  await index().meta();
  await index().switchGeneration(gen);
  return gen;
};

export function indexStoreContract(make: () => Promise<IndexHarness>) {
  let h: IndexHarness;
  beforeAll(async () => {
    h = await make();
  });
  beforeEach(async () => {
    await h.wipe();
  });
  afterAll(async () => {
    await h.cleanup();
  });
  const liveGen = liveGeneration(() => h.index);
  const store = async (tuples: string[], grants: string[] = []) =>
    h.graph.sync([
      ...tuples.map((t) => ({ tuple: tuple(t), grant: false, present: true })),
      ...grants.map((t) => ({ tuple: tuple(t), grant: true, present: true })),
    ]);
  const can = (s: string, o: string, a = 'view') => h.index.check(s, o, plan(s, o, a));
  const ctx = { harness: () => h, liveGen, store, can };

  indexGenerationsContract(ctx);
  indexChecksContract(ctx);
  indexFlatsContract(ctx);
  indexListsContract(ctx);
  indexAnswersContract(() => h, liveGen);
  indexShapesContract(() => h, liveGen);
}

interface Ctx {
  harness(): IndexHarness;
  liveGen(): Promise<number>;
  store(tuples: string[], grants?: string[]): Promise<void>;
  can(s: string, o: string, a?: string): Promise<boolean>;
}

/** Generations: the meta node, reads of the live one only, drops. */
function indexGenerationsContract({ harness, liveGen, store, can }: Ctx) {
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
      expect(await harness().index.migrate()).toBe(false);
    });

    it('checks read the flats of the live generation only; another one stays apart until it is switched to', async () => {
      const a = await liveGen();
      const b = freshGen();
      await store(['Folder:f#folder@Doc:d', 'User:u#viewer@Folder:f']);
      await harness().index.putFlats(a, [flat('Folder:f#view', { keys: ['Folder:f#viewer'] })]);
      await harness().index.putFlats(b, [flat('Folder:f#view', { public: true, hash: '2' })]);
      expect([await can('User:x', 'Doc:d'), await can('User:u', 'Doc:d')]).toEqual([false, true]);
      await harness().index.switchGeneration(b);
      expect([await can('User:x', 'Doc:d'), await can('User:u', 'Doc:d')]).toEqual([true, true]);
      expect(await harness().index.flattened(b, ['Folder:f', 'Doc:d'])).toEqual(new Set(['Folder:f']));
    });

    it('dropGeneration deletes the flats of one generation and counts them', async () => {
      const gen = await liveGen();
      const other = freshGen();
      await store(['Folder:f#folder@Doc:d', 'Folder:g#parent@Folder:f']);
      await harness().index.putFlats(gen, [flat('Folder:f#view', { keys: ['Folder:g#viewer'], deps: ['Folder:f', 'Folder:g'] }), flat('Folder:g#view')]);
      await harness().index.putFlats(other, [flat('Folder:f#view', { public: true })]);
      expect(await harness().index.dropGeneration(gen)).toBe(2);
      expect(await harness().index.flattened(gen, ['Folder:f', 'Folder:g'])).toEqual(new Set());
      expect(await harness().index.flatsDependingOn(gen, ['Folder:g'])).toEqual([]);
      expect(await harness().index.dropGeneration(gen)).toBe(0);
      expect(await can('User:x', 'Doc:d')).toBe(false);
      await harness().index.switchGeneration(other);
      expect(await can('User:x', 'Doc:d')).toBe(true);
      expect(await harness().index.dropGeneration(other)).toBe(1);
    });
  });
}

/** Checks: each way the plan and the stored edges and flats give an action, and what does not. */
function indexChecksContract({ harness, liveGen, store, can }: Ctx) {
  describe('index store: checks and records', () => {
    it('a direct tuple of a relation in the plan, a direct grant of a permission in its closure', async () => {
      await liveGen();
      await store(['User:o#owner@Doc:d', 'Team:t#reader@Doc:d', 'User:m#member@Team:t', 'User:r#reader@Doc:e'], ['User:g#edit@Doc:d', 'User:v#view@Doc:e']);
      expect([await can('User:o', 'Doc:d'), await can('User:o', 'Doc:d', 'share'), await can('Team:t', 'Doc:d')]).toEqual([true, true, true]);
      // A reader's team members are not readers (reader is no arrow); a grant of edit gives share, not view.
      expect([await can('User:m', 'Doc:d'), await can('User:g', 'Doc:d'), await can('User:g', 'Doc:d', 'share')]).toEqual([false, false, true]);
      expect([await can('User:v', 'Doc:e'), await can('User:r', 'Doc:e'), await can('User:r', 'Doc:d')]).toEqual([true, true, false]);
      expect([await can('User:o', 'Doc:nowhere'), await can('User:nobody', 'Doc:d')]).toEqual([false, false]);
    });

    it("an arrow to a relation of its subject, and to a permission through the subject's flat (a tuple, a grant, public)", async () => {
      const gen = await liveGen();
      await store([
        'Team:t#team@Doc:d',
        'User:m#member@Team:t',
        'User:x#owner@Team:t',
        'Folder:f#folder@Doc:d',
        'User:v#viewer@Folder:up',
        'User:w#viewer@Folder:other',
        'Team:t2#viewer@Folder:up',
        'Folder:pub#folder@Doc:p',
      ], ['User:gv#view@Folder:f']);
      await harness().index.putFlats(gen, [
        flat('Folder:f#view', { keys: ['Folder:f#viewer', 'Folder:up#viewer', 'Folder:f#view!'], deps: ['Folder:f', 'Folder:up'] }),
        flat('Folder:pub#view', { public: true }),
      ]);
      expect([await can('User:m', 'Doc:d'), await can('User:x', 'Doc:d')]).toEqual([true, false]);
      expect([await can('User:v', 'Doc:d'), await can('Team:t2', 'Doc:d'), await can('User:gv', 'Doc:d')]).toEqual([true, true, true]);
      expect([await can('User:w', 'Doc:d'), await can('User:v', 'Doc:d', 'edit')]).toEqual([false, false]);
      expect([await can('User:anyone', 'Doc:p'), await can('User:anyone', 'Doc:d')]).toEqual([true, false]);
    });

    it('only what the model counts: a subject type a slot does not admit, an arrow tuple from a type its relation does not admit', async () => {
      const gen = await liveGen();
      await store(['Folder:f#folder@Doc:d', 'Robot:r#viewer@Folder:f', 'Team:t#folder@Doc:e', 'Robot:r#owner@Doc:d']);
      await harness().index.putFlats(gen, [flat('Folder:f#view', { keys: ['Folder:f#viewer'] }), flat('Team:t#view', { public: true })]);
      expect([await can('Robot:r', 'Doc:d'), await can('User:x', 'Doc:e')]).toEqual([false, false]);
    });

    it('a public action admits anyone on any object of its type, stored or not', async () => {
      await liveGen();
      expect([await can('User:x', 'Folder:never', 'open'), await can('User:x', 'Folder:never', 'view')]).toEqual([true, false]);
    });

    it("records list the object's arrow tuples with their flats, and the subject's direct keys with their slots", async () => {
      const gen = await liveGen();
      await store(['Folder:f#folder@Doc:d', 'Team:t#team@Doc:d', 'User:u#viewer@Folder:up', 'User:u#owner@Doc:e'], ['User:u#edit@Doc:d']);
      await harness().index.putFlats(gen, [flat('Folder:f#view', { keys: ['Folder:up#viewer', 'Folder:f#viewer'] })]);
      const r = await harness().index.records('User:u', 'Doc:d', plan('User:u', 'Doc:d', 'view'));
      expect(r.gen).toBe(gen);
      const arrows = [...r.arrows].sort((a, b) => a.x.localeCompare(b.x)).map((a) => ({ ...a, flats: a.flats.map((f) => ({ ...f, keys: sorted(f.keys) })) }));
      expect(arrows).toEqual([
        { x: 'Folder:f', rel: 'folder', flats: [{ perm: 'view', public: false, keys: ['Folder:f#viewer', 'Folder:up#viewer'] }] },
        { x: 'Team:t', rel: 'team', flats: [] },
      ]);
      expect([...r.held!].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: 'Doc:d#edit!', slot: 'Doc#edit!' },
        { key: 'Doc:e#owner', slot: 'Doc#owner' },
        { key: 'Folder:up#viewer', slot: 'Folder#viewer' },
      ]);
      expect(await harness().index.records('User:nobody', 'Doc:none', plan('User:u', 'Doc:d', 'view'))).toEqual({ gen, arrows: [], held: null });
    });
  });
}

/** Flats: rewrites by hash, and the questions the indexer asks. */
function indexFlatsContract({ harness, liveGen, store, can }: Ctx) {
  describe('index store: flats', () => {
    it('putFlats writes only flats whose hash changed, returns their ids, and replaces their keys and deps', async () => {
      const gen = await liveGen();
      await store(['Folder:f#folder@Doc:d', 'Folder:up#parent@Folder:f', 'User:u#viewer@Folder:f', 'User:w#viewer@Folder:up']);
      const f = flat('Folder:f#view', { keys: ['Folder:f#viewer'], deps: ['Folder:f', 'Folder:up'] });
      expect(await harness().index.putFlats(gen, [f, flat('Folder:f#open', { hash: '2' })])).toEqual(['Folder:f#view', 'Folder:f#open']);
      // Unchanged hash: the content given is ignored.
      expect(await harness().index.putFlats(gen, [{ ...f, keys: [], public: true }])).toEqual([]);
      expect([await can('User:x', 'Doc:d'), await can('User:u', 'Doc:d')]).toEqual([false, true]);
      expect(await harness().index.putFlats(gen, [{ ...f, keys: ['Folder:up#viewer'], deps: ['Folder:f'], hash: '3' }])).toEqual(['Folder:f#view']);
      expect([await can('User:u', 'Doc:d'), await can('User:w', 'Doc:d')]).toEqual([false, true]);
      expect(await harness().index.flatsDependingOn(gen, ['Folder:up'])).toEqual([]);
      expect(await harness().index.flatsDependingOn(gen, ['Folder:f'])).toEqual(['Folder:f']);
    });

    it('flattened, flatsDependingOn and objectsUnder answer per generation; objectsUnder stops at its limit', async () => {
      const gen = freshGen();
      const other = freshGen();
      await store(['Folder:a#folder@Doc:1', 'Folder:a#folder@Doc:2', 'Folder:c#folder@Doc:3', 'Folder:b#parent@Folder:a', 'Folder:b#parent@Folder:c']);
      await harness().index.putFlats(gen, [
        flat('Folder:a#view', { deps: ['Folder:a', 'Folder:b'] }),
        flat('Folder:c#view', { deps: ['Folder:c', 'Folder:b'] }),
      ]);
      expect(await harness().index.flattened(gen, ['Folder:a', 'Folder:b', 'Folder:c', 'Folder:z'])).toEqual(new Set(['Folder:a', 'Folder:c']));
      expect(sorted(await harness().index.flatsDependingOn(gen, ['Folder:b']))).toEqual(['Folder:a', 'Folder:c']);
      expect(sorted(await harness().index.flatsDependingOn(gen, ['Folder:a', 'Doc:1']))).toEqual(['Folder:a']);
      expect(sorted(await harness().index.objectsUnder(gen, ['Folder:a#view'], 10))).toEqual(['Doc:1', 'Doc:2']);
      expect(sorted(await harness().index.objectsUnder(gen, ['Folder:a#view', 'Folder:c#view', 'Folder:z#view'], 10))).toEqual(['Doc:1', 'Doc:2', 'Doc:3']);
      const two = await harness().index.objectsUnder(gen, ['Folder:a#view', 'Folder:c#view'], 2);
      expect(two).toHaveLength(2);
      expect(two.every((o) => ['Doc:1', 'Doc:2', 'Doc:3'].includes(o))).toBe(true);
      expect(await harness().index.flattened(other, ['Folder:a'])).toEqual(new Set());
      expect(await harness().index.flatsDependingOn(other, ['Folder:b'])).toEqual([]);
      expect(await harness().index.objectsUnder(other, ['Folder:a#view'], 10)).toEqual([]);
    });
  });
}

function indexListsContract({ harness, liveGen, store }: Ctx) {
  describe('index store: lists, paging and counts', () => {
    it('listObjects: distinct objects in id order through direct tuples, grants, arrows and flats; skip, limit, pivots', async () => {
      const { index } = harness();
      const gen = await liveGen();
      await store([
        'User:u#owner@Doc:b',
        'Folder:f#folder@Doc:a',
        'Folder:f#folder@Doc:b',
        'User:u#viewer@Folder:f',
        'Folder:p#folder@Doc:c',
        'Team:t#team@Doc:e',
        'User:u#member@Team:t',
        'Folder:n#folder@Doc:d',
        'User:u#owner@Folder:x',
      ], ['User:u#view@Doc:g']);
      await index.putFlats(gen, [flat('Folder:f#view', { keys: ['Folder:f#viewer'] }), flat('Folder:p#view', { public: true }), flat('Folder:n#view')]);
      const p = plan('User:u', 'Doc:a', 'view');
      expect(await index.listObjects('User:u', 'Doc', p, 0, 100)).toEqual(['Doc:a', 'Doc:b', 'Doc:c', 'Doc:e', 'Doc:g']);
      expect(await index.listObjects('User:nobody', 'Doc', p, 0, 100)).toEqual(['Doc:c']);
      expect(await index.listObjects('User:u', 'Doc', plan('User:u', 'Doc:a', 'edit'), 0, 100)).toEqual(['Doc:b']);
      expect(await index.listObjects('User:u', 'Doc', p, 1, 2)).toEqual(['Doc:b', 'Doc:c']);
      expect(await index.listObjects('User:u', 'Doc', p, 4, 5)).toEqual(['Doc:g']);
      expect(await index.listObjects('User:u', 'Doc', p, 0, 0)).toEqual([]);
      expect(await index.countObjects('User:u', 'Doc', p, 'Doc:c')).toEqual({ count: 5, below: 2, has: true });
      expect(await index.countObjects('User:u', 'Doc', p, 'Doc:d')).toEqual({ count: 5, below: 3, has: false });
      expect(await index.countObjects('User:u', 'Doc', plan('User:u', 'Doc:a', 'nothing'), 'Doc:a')).toEqual({ count: 0, below: 0, has: false });
    });

    it('listSubjects: subjects of one type with the action, in id order; the count says whether a flat makes it public', async () => {
      const { index } = harness();
      const gen = await liveGen();
      await store(['Folder:f#folder@Doc:d', ...['User:c', 'User:a', 'Team:t'].map((s) => `${s}#viewer@Folder:f`), 'User:b#owner@Doc:d', 'User:a#owner@Doc:d',
        'Folder:p#folder@Doc:q']);
      await index.putFlats(gen, [flat('Folder:f#view', { keys: ['Folder:f#viewer'] }), flat('Folder:p#view', { public: true })]);
      const users = plan('User:a', 'Doc:d', 'view');
      expect(await index.listSubjects('Doc:d', 'User', users, 0, 10)).toEqual(['User:a', 'User:b', 'User:c']);
      expect(await index.listSubjects('Doc:d', 'User', users, 1, 1)).toEqual(['User:b']);
      expect(await index.listSubjects('Doc:d', 'Team', plan('Team:t', 'Doc:d', 'view'), 0, 10)).toEqual(['Team:t']);
      expect(await index.countSubjects('Doc:d', 'User', users, 'User:b')).toEqual({ count: 3, below: 1, has: true, public: false });
      expect(await index.countSubjects('Doc:q', 'User', users, 'User:b')).toEqual({ count: 0, below: 0, has: false, public: true });
      expect(await index.countSubjects('Doc:none', 'User', users, 'User:b')).toEqual({ count: 0, below: 0, has: false, public: false });
      expect(await index.listSubjects('Doc:none', 'User', users, 0, 10)).toEqual([]);
    });

    it('listNamed: objects of a type that a valid tuple or grant names, as subject or resource', async () => {
      const { index } = harness();
      await store(['User:u#viewer@Folder:b', 'Folder:a#parent@Folder:c', 'Robot:r#viewer@Folder:bad'], ['User:u#open@Folder:g']);
      const v = validity(MODEL);
      expect(await index.listNamed('Folder', v, 0, 10)).toEqual(['Folder:a', 'Folder:b', 'Folder:c', 'Folder:g']);
      expect(await index.listNamed('Folder', v, 1, 2)).toEqual(['Folder:b', 'Folder:c']);
      expect(await index.countNamed('Folder', v, 'Folder:bb')).toEqual({ count: 4, below: 2, has: false });
    });

    it("holds, listHeld and listHolders read a relation's tuples, by type, paged and counted", async () => {
      const { index } = harness();
      await store([
        ...['Doc:c', 'Doc:a', 'Docs:x'].map((o) => `User:u#reader@${o}`),
        'User:u#owner@Doc:b',
        ...['User:z', 'User:y', 'Team:t'].map((s) => `${s}#reader@Doc:a`),
      ], ['User:u#reader@Doc:b']);
      expect(await index.listHeld('User:u', 'Doc', 'reader', 0, 10)).toEqual(['Doc:a', 'Doc:c']);
      expect(await index.listHeld('User:u', 'Doc', 'reader', 1, 10)).toEqual(['Doc:c']);
      expect(await index.countHeld('User:u', 'Doc', 'reader', 'Doc:b')).toEqual({ count: 2, below: 1, has: false });
      expect(await index.countHeld('User:nobody', 'Doc', 'reader', 'Doc:b')).toEqual({ count: 0, below: 0, has: false });
      expect(await index.listHolders('Doc:a', 'reader', 'User', 0, 10)).toEqual(['User:u', 'User:y', 'User:z']);
      expect(await index.listHolders('Doc:a', 'reader', 'User', 1, 1)).toEqual(['User:y']);
      expect(await index.countHolders('Doc:a', 'reader', 'User', 'User:y')).toEqual({ count: 3, below: 1, has: true });
      expect([await index.holds('User:u', 'Doc:a', 'reader'), await index.holds('User:u', 'Doc:b', 'reader')]).toEqual([true, false]);
    });
  });
}
