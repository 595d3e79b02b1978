// The tuple listing contract: pages of the projected tuples in key order, filtered by subject and resource type,
// searched case-insensitively; counts past the cap are lower bounds, and a broad sparse search is refused. Small limits
// (cap 5, budget 8) reach every branch; each test's types and search words are its own. Twin and Neo4j.
import { randomBytes } from 'node:crypto';
import type { GraphStore } from '../../src/stores/ports/graph.js';
import type { TupleListing, TupleListQuery } from '../../src/stores/ports/tuple-listing.js';
import { freshTypes, t } from './graph.contract.js';

export interface ListingHarness {
  graph: GraphStore;
  listing(limits: { cap: number; budget: number }): TupleListing;
  cleanup(): Promise<void>;
  /** How long the adapter keeps an indexed tuple among the pending ones (Neo4j: its settle), if it does. */
  settleMs?: number;
}

const LIMITS = { cap: 5, budget: 8 };
const q = (over: Partial<TupleListQuery>): TupleListQuery => ({ descending: false, skip: 0, limit: 100, ...over });

const writeTo = (h: ListingHarness, texts: string[]) => h.graph.sync(texts.map((x) => ({ tuple: t(x), grant: false, present: true })));

export function tupleListingContract(make: () => Promise<ListingHarness>) {
  let h: ListingHarness;
  let listing: TupleListing;
  beforeAll(async () => {
    h = await make();
    listing = h.listing(LIMITS);
  });
  afterAll(async () => {
    await h.cleanup();
  });
  const write = (texts: string[]) => writeTo(h, texts);

  describe('tuple listing', () => {
    it('pages by subject type or resource type in key order, either way, with exact counts', async () => {
      const { A, B, C } = freshTypes();
      const keys = ['a', 'b', 'c', 'd'].map((u) => `${A}:${u}#viewer@${B}:doc`);
      await write([...keys, `${C}:x#viewer@${B}:doc`, `${A}:e#viewer@${C}:doc`]);
      await h.graph.sync([{ tuple: t(`${A}:z#view@${B}:doc`), grant: true, present: true }]);
      expect(await listing.list(q({ subjectType: A, limit: 2 }))).toEqual({ keys: keys.slice(0, 2), count: 5, exact: true });
      expect(await listing.list(q({ subjectType: A, descending: true, skip: 1, limit: 2 })))
        .toEqual({ keys: [keys[3], keys[2]], count: 5, exact: true });
      expect(await listing.list(q({ subjectType: A, skip: 5 }))).toEqual({ keys: [], count: 5, exact: true });
      expect(await listing.list(q({ resourceType: C }))).toEqual({ keys: [`${A}:e#viewer@${C}:doc`], count: 1, exact: true });
    });

    it('with both type filters, counts up to the cap and says whether the count is exact', async () => {
      const { A, B } = freshTypes();
      const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((u) => `${A}:${u}#viewer@${B}:doc`);
      await write(keys);
      expect(await listing.list(q({ subjectType: A, resourceType: B, skip: 5 }))).toEqual({ keys: keys.slice(5), count: 5, exact: false });
      const { A: A2, B: B2 } = freshTypes();
      await write([`${A2}:a#viewer@${B2}:d`, `${A2}:b#viewer@${B2}:d`]);
      expect(await listing.list(q({ subjectType: A2, resourceType: B2 }))).toEqual({ keys: [`${A2}:a#viewer@${B2}:d`, `${A2}:b#viewer@${B2}:d`], count: 2, exact: true });
    });

    it('a search with fewer matches than the cap is exact: case-insensitive, filtered, sorted and paged', async () => {
      const { A, B, C } = freshTypes();
      const word = `w${randomBytes(4).toString('hex')}`;
      await write([`${A}:${word}1#viewer@${B}:d`, `${A}:X${word.toUpperCase()}#viewer@${C}:d`, `${A}:plain#viewer@${B}:d`, `${B}:${word}#viewer@${C}:d`]);
      expect(await listing.list(q({ search: word.toUpperCase() }))).toEqual({
        keys: [`${A}:X${word.toUpperCase()}#viewer@${C}:d`, `${A}:${word}1#viewer@${B}:d`, `${B}:${word}#viewer@${C}:d`].sort(),
        count: 3,
        exact: true,
      });
      expect(await listing.list(q({ search: word, subjectType: A, descending: true, limit: 1 })))
        .toEqual({ keys: [[`${A}:X${word.toUpperCase()}#viewer@${C}:d`, `${A}:${word}1#viewer@${B}:d`].sort().at(-1)], count: 2, exact: true });
      expect(await listing.list(q({ search: word, resourceType: B }))).toEqual({ keys: [`${A}:${word}1#viewer@${B}:d`], count: 1, exact: true });
    });

    it('a broad search: a full page is a lower bound, a short one ends within the budget or is refused as too broad', async () => {
      const { A, B } = freshTypes();
      const word = `w${randomBytes(4).toString('hex')}`;
      const keys = Array.from({ length: 12 }, (_, i) => `${A}:${word}${String(i).padStart(2, '0')}#viewer@${B}:d`);
      await write(keys);
      expect(await listing.list(q({ search: word, subjectType: A, limit: 3 }))).toEqual({ keys: keys.slice(0, 3), count: 5, exact: false });
      expect(await listing.list(q({ search: word, subjectType: A, skip: 6, limit: 5 }))).toEqual({ tooBroad: true });
      // Within the budget: two of its tuples in this type, while the word matches more than the cap elsewhere.
      const { A: A2 } = freshTypes();
      const few = [`${A2}:${word}#viewer@${B}:d`, `${A2}:${word}x#viewer@${B}:d`];
      await write(few);
      expect(await listing.list(q({ search: word, subjectType: A2 }))).toEqual({ keys: few, count: 2, exact: true });
    });

    catchUpCase(() => ({ h, listing }));
    catchUpRaceCase(() => ({ h, listing }));
    idleCase(() => ({ h, listing }));

    it('prepare fills nothing on tuples this version projected, and starts no fill once marked', async () => {
      await listing.prepare();
      let started = false;
      expect(await listing.prepare(() => {
        started = true;
      })).toBe(0);
      expect(started).toBe(false);
    });
  });
}

/** The search text a write leaves to the catch-up (Neo4j: searchPending), counted on both adapters. */
function catchUpCase(get: () => { h: ListingHarness; listing: TupleListing }) {
  it('a write leaves its search text to the catch-up, which takes at most its limit; a search finds pending tuples too', async () => {
    while (await get().listing.catchUp(1000) > 0);
    const { A, B } = freshTypes();
    const word = `w${randomBytes(4).toString('hex')}`;
    const keys = ['a', 'b', 'c'].map((u) => `${A}:${word}${u}#viewer@${B}:d`);
    await writeTo(get().h, keys);
    expect(await get().listing.catchUp(2)).toBe(2);
    expect(await get().listing.catchUp(10)).toBe(1);
    expect(await get().listing.catchUp(10)).toBe(0);
    // Written again: still searchable. Deleted and written again: a new edge, whose text is caught up again.
    await writeTo(get().h, keys);
    expect(await get().listing.catchUp(10)).toBe(0);
    await get().h.graph.sync([{ tuple: t(keys[0]!), grant: false, present: false }]);
    await writeTo(get().h, [keys[0]!]);
    expect(await get().listing.catchUp(10)).toBe(1);
    const fresh = `${A}:${word}d#viewer@${B}:d`;
    await writeTo(get().h, [fresh]);
    // Pending or caught up, a search finds it, and changes nothing.
    expect(await get().listing.list(q({ search: word.toUpperCase() }))).toEqual({ keys: [...keys, fresh], count: 4, exact: true });
    expect(await get().listing.list(q({ search: word, descending: true, limit: 1 }))).toEqual({ keys: [fresh], count: 4, exact: true });
    expect(await get().listing.catchUp(10)).toBe(1);
    expect(await get().listing.list(q({ search: word }))).toEqual({ keys: [...keys, fresh], count: 4, exact: true });
  });
}

/** `idle` says whether a catch-up has anything left: a tuple to index, or a mark to take off (after the settle). */
function idleCase(get: () => { h: ListingHarness; listing: TupleListing }) {
  it('is idle once every tuple is caught up and settled, and not after a write', async () => {
    const { h, listing } = get();
    while (await listing.catchUp(1000) > 0);
    await new Promise((r) => setTimeout(r, (h.settleMs ?? 0) + 50));
    let passes = 0;
    for (; passes < 50 && !(await listing.idle()); passes++) await listing.catchUp(1000);
    expect(passes).toBeLessThan(50);
    const { A, B } = freshTypes();
    await writeTo(h, [`${A}:a#viewer@${B}:d`]);
    expect(await listing.idle()).toBe(false);
    expect(await listing.catchUp(10)).toBe(1);
    expect(await listing.idle()).toBe(h.settleMs === undefined);
  });
}

/**
 * A search while the catch-up moves its matches from the pending edges to the text index finds each of them: on Neo4j
 * a commit shows a search the pending index's change before the text index's, and searches missed the edges of a pass.
 */
function catchUpRaceCase(get: () => { h: ListingHarness; listing: TupleListing }) {
  it('a search during catch-up passes finds every match, none missed between the pending edges and the text index', async () => {
    const { h, listing } = get();
    while (await listing.catchUp(1000) > 0);
    const { A, B } = freshTypes();
    const word = `w${randomBytes(4).toString('hex')}`;
    const n = 300;
    await writeTo(h, Array.from({ length: n }, (_, i) => `${A}:${word}${String(i).padStart(3, '0')}#viewer@${B}:d`));
    const wide = h.listing({ cap: 1000, budget: 2000 });
    let passing = true;
    // Small passes until the backlog is gone, and on past the settle, so marks come off while searches run too.
    const passes = (async () => {
      const until = Date.now() + 3 * (h.settleMs ?? 0);
      try {
        while (await listing.catchUp(10) > 0 || Date.now() < until);
      } finally {
        passing = false;
      }
    })();
    const counts: number[] = [];
    do {
      const page = await wide.list(q({ search: word, limit: 1 }));
      counts.push('count' in page ? page.count : -1);
    } while (passing);
    await passes;
    expect(counts.filter((c) => c !== n)).toEqual([]);
    expect(await wide.list(q({ search: word, limit: 1 }))).toMatchObject({ count: n, exact: true });
  });
}
