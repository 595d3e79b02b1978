// Definitions, relationships, direct grants and the change log in MongoDB: idempotent by unique keys and upserts.
import { randomUUID } from 'node:crypto';
import type { Collection, Db, Filter, Sort } from 'mongodb';
import { parseObject, tupleText, type Tuple } from '../../engine/ids.js';
import type { Definition } from '../../engine/model.js';
import type { DefinitionRecord, DefinitionStore } from '../ports/definitions.js';
import { grantTuple, type GrantDoc, type GrantStore } from '../ports/grants.js';
import type { RelationRecord, TupleReads, TupleWrites } from '../ports/tuples.js';
import type { ListQuery, Page } from '../ports/paging.js';
import { inBatches } from './batches.js';
import { documentCount } from './document-count.js';
import { COLLECTIONS } from './connection.js';
import { DUPLICATE_KEY, isDuplicateKey } from './duplicate-key.js';
import { tupleId } from '../tuple-id.js';

export { tupleId };

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sortOf = (sort: string | undefined, fallback: string): Sort => {
  const field = sort ?? fallback;
  return field.startsWith('-') ? { [field.slice(1)]: -1, _id: 1 } : { [field]: 1, _id: 1 };
};
const asTuple = (r: { subject: string; relation: string; resource: string }): Tuple => ({ subject: r.subject, relation: r.relation, resource: r.resource });

/**
 * Which tuple texts have a document in `col`: one `findOne` by `_id` each, a few at a time. FerretDB v1
 * answers any `_id` filter by scanning; a `findOne` stops at the first match, `_id: {$in}` reads the whole
 * collection every time. The write path reads presence only for deletes and recovered entries.
 */
async function present(col: Collection<{ _id: string; computedTuple: string }>, texts: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const text = texts[next++]!;
      if (await col.findOne({ _id: tupleId(text) }, { projection: { _id: 1 } })) out.add(text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, texts.length) }, worker));
  return out;
}

/** Definitions, tuples and grants in MongoDB: one adapter for every capability, each service takes the ones it uses. */
export function mongoAuthzStore(db: Db): DefinitionStore & TupleReads & TupleWrites & GrantStore {
  return { ...mongoDefinitions(db), ...mongoTuples(db), ...mongoGrants(db) };
}

/** Resource definitions, one document each, replaced whole under a version filter. */
export function mongoDefinitions(db: Db): DefinitionStore {
  const defs = db.collection<DefinitionRecord>(COLLECTIONS.definitions);

  async function page(filter: Filter<DefinitionRecord>, q: ListQuery, fallback: string): Promise<Page<DefinitionRecord>> {
    const [items, count] = await Promise.all([
      defs.find(filter).sort(sortOf(q.sort, fallback)).skip(q.skip).limit(q.limit).toArray(),
      defs.countDocuments(filter),
    ]);
    return { items, count };
  }

  return {
    definitions: () => defs.find({}).toArray(),
    async findDefinition(idOrName) {
      return (await defs.findOne({ name: idOrName })) ?? defs.findOne({ _id: idOrName });
    },
    listDefinitions(q) {
      const filter: Filter<DefinitionRecord> = q.search ? { name: { $regex: escapeRegex(q.search), $options: 'i' } } : {};
      return page(filter, q, 'name');
    },
    async saveDefinition(def: Definition, version: number) {
      const now = new Date();
      const existing = await defs.findOne({ name: def.name });
      const doc = { name: def.name, relations: def.relations, permissions: def.permissions, version, updatedAt: now, createdAt: existing?.createdAt ?? now };
      // Whole-document replace: FerretDB v1 does not replace an embedded document holding arrays under $set.
      // The version filter makes it conditional; the unique name index settles concurrent first writes.
      const replaced = await defs.replaceOne({ name: def.name, version: { $lt: version } }, doc);
      if (replaced.matchedCount === 0) {
        try {
          await defs.insertOne({ _id: randomUUID(), ...doc });
        } catch (e) {
          if (!isDuplicateKey(e)) throw e;
          return { record: (await defs.findOne({ name: def.name }))!, written: false };
        }
      }
      return { record: (await defs.findOne({ name: def.name }))!, written: true };
    },
    async deleteDefinition(name) {
      const found = await defs.findOne({ name });
      if (found) await defs.deleteOne({ _id: found._id });
      return found;
    },
  };
}

/** Relationship tuples, one document each keyed by the tuple's id. */
export function mongoTuples(db: Db): TupleReads & TupleWrites {
  const rels = db.collection<RelationRecord>(COLLECTIONS.relations);
  return {
    async insertTuples(tuples, revision) {
      const createdAt = new Date();
      const docs = tuples.map((t) => {
        const s = parseObject(t.subject)!;
        const o = parseObject(t.resource)!;
        const computedTuple = tupleText(t);
        return { _id: tupleId(computedTuple), subject: t.subject, relation: t.relation, resource: t.resource, computedTuple, subjectType: s.type, subjectId: s.id,
          resourceType: o.type, resourceId: o.id, createdAt, revision };
      });
      const failed = new Set<number>();
      try {
        await rels.insertMany(docs, { ordered: false });
      } catch (e) {
        // Existing tuples fail on `_id` and the rest are inserted (unordered); anything else is a real error.
        const errors = (e as { writeErrors?: Array<{ index: number; code: number }> | { index: number; code: number } }).writeErrors;
        const list = errors === undefined ? [] : Array.isArray(errors) ? errors : [errors];
        if (list.length === 0 || list.some((w) => w.code !== DUPLICATE_KEY)) throw e;
        for (const w of list) failed.add(w.index);
      }
      const created = new Set(docs.filter((_, i) => !failed.has(i)).map((d) => d.computedTuple));
      const existing = await Promise.all(docs.filter((_, i) => failed.has(i)).map((d) => rels.findOne({ _id: d._id })));
      const byId = new Map(existing.filter((r) => r !== null).map((r) => [r._id, r]));
      return { records: docs.map((d) => byId.get(d._id) ?? d), created };
    },
    findTuple: (id) => rels.findOne({ _id: id }),
    async findTuples(texts) {
      // All at once: a page is at most 1,000 lookups, each an indexed `_id` equality (a `$in` would scan on FerretDB v1).
      const found = await Promise.all(texts.map((text) => rels.findOne({ _id: tupleId(text) })));
      return found.filter((r): r is NonNullable<typeof r> => r !== null);
    },
    async deleteTuple(id) {
      const found = await rels.findOne({ _id: id });
      if (!found) return null;
      const r = await rels.deleteOne({ _id: id });
      return r.deletedCount === 1 ? found : null;
    },
    async *tuplesMatching(match, batch, opts) {
      const cursor = rels.find(match as Filter<RelationRecord>, { batchSize: batch });
      if (opts?.bySubject) cursor.sort({ subject: 1, _id: 1 });
      yield* inBatches(cursor, batch);
    },
    async presentTuples(texts) {
      return present(rels as unknown as Collection<{ _id: string; computedTuple: string }>, texts);
    },
    async deleteTupleTexts(texts) {
      if (!texts.length) return 0;
      // One round trip; each statement is an `_id` lookup (a `$in` would scan on FerretDB v1).
      const r = await rels.bulkWrite(texts.map((text) => ({ deleteOne: { filter: { _id: tupleId(text) } } })), { ordered: false });
      return r.deletedCount;
    },
    async *scanTuples(batch, upTo) {
      // One streaming cursor over the collection: one pass on FerretDB v1, where a filtered find per batch would rescan
      // and `distinct('resourceType')`, used to split the pass by type, took 58 s at 1M tuples.
      const filter: Filter<RelationRecord> = upTo === undefined ? {} : { revision: { $lte: upTo } };
      const cursor = rels.find(filter, { projection: { subject: 1, relation: 1, resource: 1 }, batchSize: batch });
      for await (const rows of inBatches(cursor, batch)) yield rows.map(asTuple);
    },
    countTuples: () => documentCount(rels),
  };
}

/** Direct grants, one document each keyed by the grant's tuple id. */
export function mongoGrants(db: Db): GrantStore {
  const grants = db.collection<GrantDoc>(COLLECTIONS.grants);
  return {
    async *grantsInvolving(object, batch) {
      // Two equality finds one after the other: FerretDB v1 would scan for an $or.
      for (const filter of [{ resource: object }, { subject: object }]) {
        for await (const page of inBatches(grants.find(filter, { batchSize: batch }), batch)) yield page.map(grantTuple);
      }
    },
    async putGrant(g, revision) {
      const computedTuple = tupleText(g);
      try {
        await grants.insertOne({ _id: tupleId(computedTuple), subject: g.subject, permission: g.relation, resource: g.resource, computedTuple,
          resourceType: parseObject(g.resource)!.type, revision, createdAt: new Date() });
        return { created: true };
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
        return { created: false };
      }
    },
    async deleteGrant(g) {
      return (await grants.deleteOne({ _id: tupleId(tupleText(g)) })).deletedCount === 1;
    },
    async presentGrants(texts) {
      return present(grants as unknown as Collection<{ _id: string; computedTuple: string }>, texts);
    },
    countGrants: () => documentCount(grants),
    async *scanGrants(batch, upTo) {
      const cursor = grants.find(upTo === undefined ? {} : { revision: { $lte: upTo } }, { batchSize: batch });
      for await (const rows of inBatches(cursor, batch)) yield rows.map(grantTuple);
    },
  };
}
