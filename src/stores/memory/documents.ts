// In-memory twin of the MongoDB document store: one Map per collection, unique fields, and MongoDB's filters and order.
import type { Doc, DocumentStore } from '../ports/documents.js';
import { DuplicateKey } from '../ports/errors.js';
import { copy } from './copy.js';
import { matches, sorter } from './mongo-order.js';

interface Collection {
  docs: Map<string, Doc>;
  unique: Set<string>;
}

/**
 * A unique field's key; none for a missing field, which never clashes on FerretDB v1 (PostgreSQL's NULL), though
 * MongoDB counts it as null. An explicit null does clash.
 */
const keyOf = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v instanceof Date ? { $date: v.getTime() } : v));

export function memoryDocumentStore(): DocumentStore & { collections(): Promise<string[]> } {
  const cols = new Map<string, Collection>();
  const col = (name: string) => {
    let c = cols.get(name);
    if (!c) cols.set(name, c = { docs: new Map(), unique: new Set() });
    return c;
  };
  const clashes = (c: Collection, doc: Doc) =>
    [...c.unique].some((field) => keyOf(doc[field]) !== undefined && [...c.docs.values()].some((d) => d._id !== doc._id && keyOf(d[field]) === keyOf(doc[field])));
  return {
    async insert(collection, doc) {
      const c = col(collection);
      if (c.docs.has(doc._id) || clashes(c, doc)) throw new DuplicateKey();
      c.docs.set(doc._id, copy(doc));
    },
    async findById(collection, id) {
      return copy(cols.get(collection)?.docs.get(id) ?? null);
    },
    async findByIds(collection, ids) {
      const docs = cols.get(collection)?.docs;
      return [...new Set(ids)].flatMap((id) => (docs?.has(id) ? [copy(docs.get(id)!)] : []));
    },
    async update(collection, id, set) {
      const c = cols.get(collection);
      const d = c?.docs.get(id);
      if (!c || !d) return null;
      const after = { ...d, ...copy(set), _id: d._id };
      if (clashes(c, after)) throw new DuplicateKey();
      c.docs.set(id, after);
      return copy(after);
    },
    async delete(collection, id) {
      const d = cols.get(collection)?.docs.get(id) ?? null;
      if (d) cols.get(collection)!.docs.delete(id);
      return d;
    },
    async find(collection, filter, sort, skip, limit) {
      const all = [...(cols.get(collection)?.docs.values() ?? [])].filter((d) => matches(d, filter))
        .sort(sorter<Doc>({ ...sort, _id: sort._id ?? 1 }));
      return copy(all.slice(skip, skip + limit));
    },
    async count(collection, filter) {
      return [...(cols.get(collection)?.docs.values() ?? [])].filter((d) => matches(d, filter)).length;
    },
    async sample(collection, n) {
      return copy([...(cols.get(collection)?.docs.values() ?? [])].slice(0, n));
    },
    async uniqueIndex(collection, field) {
      const c = col(collection);
      const seen = new Set<string>();
      for (const d of c.docs.values()) {
        const k = keyOf(d[field]);
        if (k === undefined) continue;
        if (seen.has(k)) throw new DuplicateKey(`stored documents share a value of ${field}`);
        seen.add(k);
      }
      c.unique.add(field);
    },
    async collections() {
      return [...cols.keys()];
    },
  };
}
