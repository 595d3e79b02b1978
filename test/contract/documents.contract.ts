// Contract of DocumentStore: documents per collection, unique fields, the filters and sorts the services send, paging.
import type { Doc, DocumentStore } from '../../src/stores/ports/documents.js';
import { DuplicateKey } from '../../src/stores/ports/errors.js';
import { unique, withStore, type Make, type Wrap } from './harness.js';

const ids = (ds: Doc[]) => ds.map((d) => d._id);
const books: Doc[] = [
  { _id: 'b1', title: 'Dune', year: 1965, tags: ['sf'], done: true },
  { _id: 'b2', title: 'Emma', year: 1815, tags: ['classic'], done: false },
  { _id: 'b3', title: 'Ubik', year: 1969, tags: ['sf', 'short'], done: true },
  { _id: 'b4', title: 'Beloved', year: 1987, tags: [], done: false },
  { _id: 'b5', title: 'Austerlitz', year: 2001, done: true },
];

/** The books in a collection of the test's own: unique indexes stay with a collection. */
async function fill(store: DocumentStore) {
  const c = unique('books_');
  for (const b of books) await store.insert(c, b);
  return c;
}

export function documentsContract(make: Make<DocumentStore>) {
  const t = withStore(make);
  describe('DocumentStore', () => {
    byId(t);
    queries(t);
    uniqueAndCopies(t);
  });
}

/** Writes and reads of one document. */
function byId(t: Wrap<DocumentStore>) {
  it('inserts and finds by id and by ids; a taken id is DuplicateKey', t(async ({ store }) => {
    const c = await fill(store);
    expect(await store.findById(c, 'b3')).toEqual(books[2]);
    expect(await store.findById(c, 'nope')).toBeNull();
    expect(await store.findById(unique('empty_'), 'b3')).toBeNull();
    expect(ids(await store.findByIds(c, ['b2', 'x', 'b1', 'b2'])).sort()).toEqual(['b1', 'b2']);
    await expect(store.insert(c, { _id: 'b1', title: 'again' })).rejects.toBeInstanceOf(DuplicateKey);
    expect(await store.findById(c, 'b1')).toEqual(books[0]);
  }));

  it('updates fields and answers the document after, or null when it is gone', t(async ({ store }) => {
    const c = await fill(store);
    expect(await store.update(c, 'b2', { done: true, note: 'read' })).toEqual({ ...books[1], done: true, note: 'read' });
    expect(await store.findById(c, 'b2')).toEqual({ ...books[1], done: true, note: 'read' });
    expect(await store.update(c, 'nope', { done: true })).toBeNull();
    expect(await store.findById(c, 'nope')).toBeNull();
  }));

  it('deletes, answering the document, then null', t(async ({ store }) => {
    const c = await fill(store);
    expect(await store.delete(c, 'b4')).toEqual(books[3]);
    expect(await store.delete(c, 'b4')).toBeNull();
    expect(await store.count(c, {})).toBe(4);
  }));
}

/** Filters, sorts, pages and samples. */
function queries(t: Wrap<DocumentStore>) {
  it('finds with equality, comparisons, $ne, $in and $and, and counts the same', t(async ({ store }) => {
    const c = await fill(store);
    const both = async (filter: Record<string, unknown>) => {
      const found = ids(await store.find(c, filter, { _id: 1 }, 0, 100));
      expect(await store.count(c, filter)).toBe(found.length);
      return found;
    };
    expect(await both({})).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    expect(await both({ done: true })).toEqual(['b1', 'b3', 'b5']);
    expect(await both({ title: 'Emma' })).toEqual(['b2']);
    expect(await both({ tags: 'sf' })).toEqual(['b1', 'b3']);
    expect(await both({ year: { $gt: 1965 } })).toEqual(['b3', 'b4', 'b5']);
    expect(await both({ year: { $gte: 1965, $lt: 1987 } })).toEqual(['b1', 'b3']);
    expect(await both({ year: { $lte: 1815 } })).toEqual(['b2']);
    expect(await both({ title: { $lt: 'E' } })).toEqual(['b1', 'b4', 'b5']);
    expect(await both({ done: { $ne: true } })).toEqual(['b2', 'b4']);
    expect(await both({ _id: { $in: ['b5', 'b1', 'zz'] } })).toEqual(['b1', 'b5']);
    expect(await both({ $and: [{ done: true }, { _id: { $in: ['b1', 'b2', 'b3'] } }] })).toEqual(['b1', 'b3']);
    expect(await both({ year: { $gt: 'a' } })).toEqual([]);
    expect(await both({ missing: 'x' })).toEqual([]);
  }));

  it('sorts by a field either way, ties by id, and pages', t(async ({ store }) => {
    const c = await fill(store);
    expect(ids(await store.find(c, {}, { year: -1 }, 0, 10))).toEqual(['b5', 'b4', 'b3', 'b1', 'b2']);
    expect(ids(await store.find(c, {}, { title: 1 }, 0, 10))).toEqual(['b5', 'b4', 'b1', 'b2', 'b3']);
    expect(ids(await store.find(c, {}, { done: 1 }, 0, 10))).toEqual(['b2', 'b4', 'b1', 'b3', 'b5']);
    expect(ids(await store.find(c, {}, { done: -1 }, 1, 2))).toEqual(['b3', 'b5']);
    expect(ids(await store.find(c, {}, { _id: -1 }, 0, 2))).toEqual(['b5', 'b4']);
    expect(await store.find(c, {}, { _id: 1 }, 10, 5)).toEqual([]);
  }));

  it('samples stored documents', t(async ({ store }) => {
    const c = await fill(store);
    const some = await store.sample(c, 3);
    expect(some).toHaveLength(3);
    for (const d of some) expect(books).toContainEqual(d);
    expect(await store.sample(c, 50)).toHaveLength(5);
    expect(await store.sample(unique('empty_'), 5)).toEqual([]);
  }));
}

/** Unique fields, and copies in and out. */
function uniqueAndCopies(t: Wrap<DocumentStore>) {
  it('keeps a unique field unique on insert and update; an index over shared values is refused', t(async ({ store }) => {
    const c = await fill(store);
    await expect(store.uniqueIndex(c, 'done')).rejects.toBeInstanceOf(DuplicateKey);
    await store.uniqueIndex(c, 'title');
    await store.uniqueIndex(c, 'title');
    await expect(store.insert(c, { _id: 'b6', title: 'Dune', year: 2021 })).rejects.toBeInstanceOf(DuplicateKey);
    await expect(store.update(c, 'b2', { title: 'Ubik' })).rejects.toBeInstanceOf(DuplicateKey);
    expect(await store.findById(c, 'b2')).toEqual(books[1]);
    expect(await store.findById(c, 'b6')).toBeNull();
    // A document keeps its own value, and a free one may be taken.
    expect(await store.update(c, 'b2', { title: 'Emma', year: 1816 })).toMatchObject({ title: 'Emma', year: 1816 });
    await store.insert(c, { _id: 'b6', title: 'Solaris' });
    expect(await store.count(c, {})).toBe(6);
  }));

  it('gives out copies: changing a document given or returned changes nothing stored', t(async ({ store }) => {
    const c = unique('books_');
    const doc: Doc = { _id: 'x', tags: ['a'], meta: { n: 1 } };
    await store.insert(c, doc);
    (doc.tags as string[]).push('b');
    const got = (await store.findById(c, 'x'))!;
    (got.meta as { n: number }).n = 2;
    (await store.find(c, {}, { _id: 1 }, 0, 1))[0]!.tags = [];
    expect(await store.findById(c, 'x')).toEqual({ _id: 'x', tags: ['a'], meta: { n: 1 } });
  }));
}
