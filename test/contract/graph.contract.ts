// The graph store contract: edges MERGEd and deleted by key (replays converge), and the walks index work and
// explanations make over them. Each test uses types of its own, so tests on one shared Neo4j stay apart. Twin and Neo4j.
import { randomBytes } from 'node:crypto';
import { parseTupleText, type Tuple } from '../../src/engine/ids.js';
import type { EdgeChange, GraphStore } from '../../src/stores/ports/graph.js';

export interface GraphHarness {
  graph: GraphStore;
  cleanup(): Promise<void>;
}

/** Type names no other test uses: `A<hex>`, `B<hex>`, ... */
export const freshTypes = () => {
  const tag = randomBytes(5).toString('hex');
  return { A: `A${tag}`, B: `B${tag}`, C: `C${tag}` };
};
export const t = (text: string): Tuple => parseTupleText(text)!;
const texts = (list: Tuple[]) => list.map((x) => `${x.subject}#${x.relation}@${x.resource}`).sort();
const change = (text: string, present = true, grant = false): EdgeChange => ({ tuple: t(text), grant, present });

export function graphContract(make: () => Promise<GraphHarness>) {
  let h: GraphHarness;
  beforeAll(async () => {
    h = await make();
  });
  afterAll(async () => {
    await h.cleanup();
  });

  graphMarksContract(() => h);
  describe('graph store', () => {
    it('sync adds present edges and deletes absent ones, tuples and grants apart; a replay changes nothing', async () => {
      const { A, B } = freshTypes();
      const changes = [change(`${A}:u#viewer@${B}:d`), change(`${A}:u#view@${B}:d`, true, true), change(`${A}:v#owner@${B}:d`)];
      await h.graph.sync(changes);
      await h.graph.sync(changes);
      const on = await h.graph.on([`${B}:d`]);
      expect(texts(on.tuples)).toEqual([`${A}:u#viewer@${B}:d`, `${A}:v#owner@${B}:d`]);
      expect(texts(on.grants)).toEqual([`${A}:u#view@${B}:d`]);
      expect(texts((await h.graph.direct(`${A}:u`, `${B}:d`)).tuples)).toEqual([`${A}:u#viewer@${B}:d`]);
      // The grant's text as a tuple is another edge: deleting the tuple leaves the grant.
      await h.graph.sync([change(`${A}:u#viewer@${B}:d`, false), change(`${A}:u#view@${B}:d`, false)]);
      await h.graph.sync([change(`${A}:u#viewer@${B}:d`, false)]);
      const after = await h.graph.direct(`${A}:u`, `${B}:d`);
      expect([texts(after.tuples), texts(after.grants)]).toEqual([[], [`${A}:u#view@${B}:d`]]);
    });

    it('on, from and ofType: bounded reads around objects; objects stay known after their edges go', async () => {
      const { A, B } = freshTypes();
      await h.graph.sync(['u1', 'u2', 'u3'].flatMap((u) => [change(`${A}:${u}#viewer@${B}:d`), change(`${A}:${u}#viewer@${B}:e`)]));
      const on = await h.graph.on([`${B}:d`, `${B}:e`], 4);
      expect(on.tuples.length + on.grants.length).toBe(4);
      expect((await h.graph.on([`${B}:d`, `${B}:e`])).tuples).toHaveLength(6);
      expect((await h.graph.on([])).tuples).toEqual([]);
      expect((await h.graph.from([`${A}:u1`, `${A}:u2`], 10)).sort()).toEqual([`${B}:d`, `${B}:e`]);
      expect(await h.graph.from([`${A}:u1`], 1)).toHaveLength(1);
      expect(await h.graph.from([`${A}:u1`], 0)).toEqual([]);
      expect((await h.graph.ofType(A, 10)).sort()).toEqual([`${A}:u1`, `${A}:u2`, `${A}:u3`]);
      expect(await h.graph.ofType(A, 2)).toHaveLength(2);
      await h.graph.sync(['u1', 'u2', 'u3'].map((u) => change(`${A}:${u}#viewer@${B}:d`, false)));
      expect((await h.graph.ofType(B, 10)).sort()).toEqual([`${B}:d`, `${B}:e`]);
    });

    it('namedAsSubject: objects that are the subject of a tuple or grant under one of their slots', async () => {
      const { A, B } = freshTypes();
      await h.graph.sync([change(`${A}:x#viewer@${B}:d`), change(`${A}:y#view@${B}:d`, true, true), change(`${A}:z#owner@${B}:d`)]);
      const items = ['x', 'y', 'z', 'none'].map((id) => ({ key: `${A}:${id}`, tuples: [`${B}#viewer`], grants: [`${B}#view`] }));
      expect(await h.graph.namedAsSubject(items)).toEqual(new Set([`${A}:x`, `${A}:y`]));
      expect(await h.graph.namedAsSubject([])).toEqual(new Set());
    });

    walkCases(() => h);
  });
}

/** Reads that walk: a type's objects page by page, and the tuples on paths between two objects. */
function walkCases(get: () => GraphHarness) {
  it('touchingType pages the objects of a type in key order, with the edges into them and out to other types', async () => {
    const { A, B } = freshTypes();
    await get().graph.sync([
      change(`${A}:u#viewer@${B}:a`),
      change(`${B}:a#parent@${B}:b`),
      change(`${B}:b#member@${A}:g`),
      change(`${A}:u#view@${B}:c`, true, true),
      change(`${A}:u#viewer@${A}:g`),
    ]);
    const first = await get().graph.touchingType(B, '', 2);
    expect(first.next).toBe(`${B}:b`);
    expect(texts(first.tuples)).toEqual([`${A}:u#viewer@${B}:a`, `${B}:a#parent@${B}:b`, `${B}:b#member@${A}:g`]);
    expect(first.grants).toEqual([]);
    const second = await get().graph.touchingType(B, first.next!, 2);
    expect([texts(second.tuples), texts(second.grants), second.next]).toEqual([[], [`${A}:u#view@${B}:c`], null]);
    expect(await get().graph.touchingType(B, `${B}:c`, 2)).toEqual({ tuples: [], grants: [], next: null });
  });

  it('tuplesBetween: the tuples on paths from the subject to the resource, not those beside them', async () => {
    const { A, B, C } = freshTypes();
    await get().graph.sync([
      change(`${A}:u#member@${B}:t`),
      change(`${B}:t#viewer@${C}:f`),
      change(`${C}:f#parent@${C}:d`),
      change(`${A}:u#viewer@${C}:d`),
      change(`${A}:u#member@${B}:other`),
      change(`${A}:w#viewer@${C}:d`),
      change(`${A}:u#view@${C}:d`, true, true),
    ]);
    expect(texts(await get().graph.tuplesBetween(`${A}:u`, `${C}:d`))).toEqual(
      [`${A}:u#member@${B}:t`, `${A}:u#viewer@${C}:d`, `${B}:t#viewer@${C}:f`, `${C}:f#parent@${C}:d`].sort(),
    );
    expect(await get().graph.tuplesBetween(`${A}:u`, `${C}:nowhere`)).toEqual([]);
    expect(await get().graph.tuplesBetween(`${C}:d`, `${A}:u`)).toEqual([]);
  });
}

/** Marks: what a rebuild's sweep reads back (only rebuilds write them). */
function graphMarksContract(harness: () => GraphHarness) {
  describe('graph store: marks', () => {
    it('edgesAfter lists edges in key order after a key, with whether the last marked sync of each carried the mark', async () => {
      const { A, B } = freshTypes();
      await harness().graph.sync([change(`${A}:a#viewer@${B}:d`), change(`${A}:b#viewer@${B}:d`), change(`${A}:c#view@${B}:d`, true, true)], 'm1');
      await harness().graph.sync([change(`${A}:b#viewer@${B}:d`)], 'm2');
      const ours = (list: Array<{ key: string }>) => list.filter((e) => e.key.startsWith(`${A}:`));
      expect(ours(await harness().graph.edgesAfter(false, `${A}:`, 3, 'm1'))).toEqual([
        { key: `${A}:a#viewer@${B}:d`, marked: true },
        { key: `${A}:b#viewer@${B}:d`, marked: false },
      ]);
      const later = async () => [await harness().graph.edgesAfter(false, `${A}:a#viewer@${B}:d`, 1, 'm2'), ours(await harness().graph.edgesAfter(true, `${A}:`, 2, 'm1'))];
      const marked = [[{ key: `${A}:b#viewer@${B}:d`, marked: true }], [{ key: `${A}:c#view@${B}:d`, marked: true }]];
      expect(await later()).toEqual(marked);
      // A plain write (no mark) leaves the rebuild's mark: only rebuilds write marks.
      await harness().graph.sync([change(`${A}:b#viewer@${B}:d`), change(`${A}:c#view@${B}:d`, true, true)]);
      expect(await later()).toEqual(marked);
    });
  });
}
