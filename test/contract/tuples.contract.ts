// Contract of TupleReads and TupleWrites: idempotent inserts, lookups by text and id, matching, scans and deletes.
import { tupleText, type Tuple } from '../../src/engine/ids.js';
import type { TupleReads, TupleWrites } from '../../src/stores/ports/tuples.js';
import { collect, withStore, type Make, type Wrap } from './harness.js';

const tup = (text: string): Tuple => {
  const [subject, rest] = text.split('#') as [string, string];
  const [relation, resource] = rest.split('@') as [string, string];
  return { subject, relation, resource };
};
const texts = (ts: Tuple[]) => ts.map(tupleText).sort();

export function tuplesContract(make: Make<TupleReads & TupleWrites>) {
  const t = withStore(make);
  describe('TupleReads and TupleWrites', () => {
    writesAndLookups(t);
    streams(t);
  });
}

/** Inserts, lookups and deletes. */
function writesAndLookups(t: Wrap<TupleReads & TupleWrites>) {
  it('inserts new tuples with their parts and revision, and finds them by text and by id', t(async ({ store }) => {
    const { records, created } = await store.insertTuples([tup('User:a#viewer@Doc:1'), tup('Team:t#owner@Doc:2')], 7);
    expect([...created].sort()).toEqual(['Team:t#owner@Doc:2', 'User:a#viewer@Doc:1']);
    expect(records[1]).toMatchObject({ subject: 'Team:t', relation: 'owner', resource: 'Doc:2', computedTuple: 'Team:t#owner@Doc:2', subjectType: 'Team', subjectId: 't',
      resourceType: 'Doc', resourceId: '2', revision: 7 });
    expect(records[1]!.createdAt).toBeInstanceOf(Date);
    expect(await store.findTuple(records[0]!._id)).toEqual(records[0]);
    expect(await store.findTuple('no-such-id')).toBeNull();
    const found = await store.findTuples(['Team:t#owner@Doc:2', 'User:z#viewer@Doc:9', 'User:a#viewer@Doc:1']);
    expect(found.map((r) => r.computedTuple)).toEqual(['Team:t#owner@Doc:2', 'User:a#viewer@Doc:1']);
  }));

  it('inserts idempotently: an existing tuple keeps its record and is not reported created', t(async ({ store }) => {
    const first = (await store.insertTuples([tup('User:a#viewer@Doc:1')], 1)).records[0]!;
    const again = await store.insertTuples([tup('User:b#viewer@Doc:1'), tup('User:a#viewer@Doc:1')], 2);
    expect([...again.created]).toEqual(['User:b#viewer@Doc:1']);
    expect(again.records.map((r) => r.computedTuple)).toEqual(['User:b#viewer@Doc:1', 'User:a#viewer@Doc:1']);
    expect(again.records[1]).toEqual(first);
    expect(again.records[0]!.revision).toBe(2);
  }));

  it('answers which texts are stored, and deletes by id and by text', t(async ({ store }) => {
    const { records } = await store.insertTuples(['User:a#viewer@Doc:1', 'User:b#viewer@Doc:1', 'User:c#viewer@Doc:1'].map(tup), 1);
    expect([...await store.presentTuples(['User:a#viewer@Doc:1', 'User:x#viewer@Doc:1', 'User:c#viewer@Doc:1'])].sort())
      .toEqual(['User:a#viewer@Doc:1', 'User:c#viewer@Doc:1']);
    expect(await store.deleteTuple(records[0]!._id)).toEqual(records[0]);
    expect(await store.deleteTuple(records[0]!._id)).toBeNull();
    expect(await store.deleteTupleTexts(['User:b#viewer@Doc:1', 'User:a#viewer@Doc:1', 'User:x#viewer@Doc:1'])).toBe(1);
    expect(await store.deleteTupleTexts([])).toBe(0);
    expect([...await store.presentTuples(['User:a#viewer@Doc:1', 'User:b#viewer@Doc:1', 'User:c#viewer@Doc:1'])]).toEqual(['User:c#viewer@Doc:1']);
  }));
}

/** Streams, scans and counts. */
function streams(t: Wrap<TupleReads & TupleWrites>) {
  it('streams the tuples on a resource or from a subject, filtered, in batches, in subject order when asked', t(async ({ store }) => {
    await store.insertTuples(['User:c#viewer@Doc:1', 'User:a#viewer@Doc:1', 'Team:t#editor@Doc:1', 'User:b#editor@Doc:1', 'User:a#viewer@Doc:2', 'Doc:1#parent@Folder:f'].map(tup),
      1);
    const onDoc1 = await collect(store.tuplesMatching({ resource: 'Doc:1' }, 2, { bySubject: true }));
    expect(onDoc1.map((b) => b.length)).toEqual([2, 2]);
    expect(onDoc1.flat().map((r) => r.subject)).toEqual(['Team:t', 'User:a', 'User:b', 'User:c']);
    const viewers = (await collect(store.tuplesMatching({ resource: 'Doc:1', relation: 'viewer' }, 10))).flat();
    expect(viewers.map((r) => r.computedTuple).sort()).toEqual(['User:a#viewer@Doc:1', 'User:c#viewer@Doc:1']);
    const teams = (await collect(store.tuplesMatching({ resource: 'Doc:1', subjectType: 'Team' }, 10))).flat();
    expect(teams.map((r) => r.computedTuple)).toEqual(['Team:t#editor@Doc:1']);
    const fromA = (await collect(store.tuplesMatching({ subject: 'User:a' }, 10))).flat();
    expect(fromA.map((r) => r.computedTuple).sort()).toEqual(['User:a#viewer@Doc:1', 'User:a#viewer@Doc:2']);
    const fromDoc = (await collect(store.tuplesMatching({ subject: 'Doc:1', relation: 'parent' }, 10))).flat();
    expect(fromDoc.map((r) => r.resource)).toEqual(['Folder:f']);
    expect(await collect(store.tuplesMatching({ resource: 'Doc:404' }, 10))).toEqual([]);
  }));

  it('scans every tuple in bounded batches, up to a revision when asked', t(async ({ store }) => {
    const early = ['User:a#viewer@Doc:1', 'User:b#viewer@Doc:2', 'User:c#viewer@Folder:3'].map(tup);
    const late = ['User:d#viewer@Doc:4', 'User:e#viewer@Doc:5'].map(tup);
    await store.insertTuples(early, 3);
    await store.insertTuples(late, 5);
    const all = await collect(store.scanTuples(2));
    expect(all.every((b) => b.length >= 1 && b.length <= 2)).toBe(true);
    expect(texts(all.flat())).toEqual(texts([...early, ...late]));
    expect(all.flat()[0]).toEqual(expect.objectContaining({ subject: expect.any(String), relation: 'viewer' }));
    expect(Object.keys(all.flat()[0]!).sort()).toEqual(['relation', 'resource', 'subject']);
    expect(texts((await collect(store.scanTuples(10, 4))).flat())).toEqual(texts(early));
    expect(await collect(store.scanTuples(10, 2))).toEqual([]);
  }));

  it('counts tuples without reading them: a non-negative estimate, never above what is stored', t(async ({ store }) => {
    await store.insertTuples(['User:a#viewer@Doc:1', 'User:b#viewer@Doc:1'].map(tup), 1);
    const n = await store.countTuples();
    expect(Number.isInteger(n)).toBe(true);
    expect(n).toBeGreaterThanOrEqual(0);
    expect(n).toBeLessThanOrEqual(2);
  }));

  it('gives out copies: changing a returned record changes nothing stored', t(async ({ store }) => {
    const { records } = await store.insertTuples([tup('User:a#viewer@Doc:1')], 1);
    records[0]!.revision = 99;
    const [found] = await store.findTuples(['User:a#viewer@Doc:1']);
    found!.relation = 'owner';
    expect(await store.findTuple(records[0]!._id)).toMatchObject({ revision: 1, relation: 'viewer' });
  }));
}
