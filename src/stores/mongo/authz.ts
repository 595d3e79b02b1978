// Definitions, relationships, direct grants and the change log in MongoDB: idempotent by unique keys and upserts.
import { createHash, randomUUID } from 'node:crypto';
import type { Db, Filter, Sort } from 'mongodb';
import { parseObject, tupleText, type Tuple } from '../../engine/ids.js';
import type { Definition } from '../../engine/model.js';
import type { AuthzStore, ChangeEntry, DefinitionRecord, ListQuery, Page, RelationRecord } from '../ports.js';
import { COLLECTIONS } from './connection.js';

interface GrantDoc { _id: string; subject: string; permission: string; resource: string; computedTuple: string; resourceType: string; revision: number; createdAt: Date }

/**
 * Relationship and grant ids derive from the tuple text, so the unique key is `_id` itself: lookups by
 * tuple are `_id` lookups (FerretDB v1 pushes down only those) and a repeated insert fails on `_id`.
 */
export const tupleId = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sortOf = (sort: string | undefined, fallback: string): Sort => {
  const field = sort ?? fallback;
  return field.startsWith('-') ? { [field.slice(1)]: -1, _id: 1 } : { [field]: 1, _id: 1 };
};
const asTuple = (r: { subject: string; relation: string; resource: string }): Tuple =>
  ({ subject: r.subject, relation: r.relation, resource: r.resource });
const grantTuple = (g: GrantDoc): Tuple => ({ subject: g.subject, relation: g.permission, resource: g.resource });

export function mongoAuthzStore(db: Db): AuthzStore {
  const defs = db.collection<DefinitionRecord>(COLLECTIONS.definitions);
  const rels = db.collection<RelationRecord>(COLLECTIONS.relations);
  const grants = db.collection<GrantDoc>(COLLECTIONS.grants);
  const changes = db.collection<ChangeEntry & { _id: number }>(COLLECTIONS.changes);
  const counters = db.collection<{ _id: string; value: number }>(COLLECTIONS.counters);

  async function page<T extends { _id: string }>(col: typeof rels | typeof defs, filter: Filter<T>, q: ListQuery, fallback: string): Promise<Page<T>> {
    const c = col as unknown as import('mongodb').Collection<T>;
    const [items, count] = await Promise.all([
      c.find(filter).sort(sortOf(q.sort, fallback)).skip(q.skip).limit(q.limit).toArray(),
      c.countDocuments(filter),
    ]);
    return { items: items as T[], count };
  }

  return {
    async nextRevision(entry) {
      const r = await counters.findOneAndUpdate({ _id: 'revision' }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
      const revision = r!.value;
      await changes.insertOne({ _id: revision, revision, ...entry, at: new Date() });
      return revision;
    },
    async currentRevision() {
      return (await counters.findOne({ _id: 'revision' }))?.value ?? 0;
    },
    async changesSince(revision) {
      return changes.find({ revision: { $gt: revision } }).sort({ revision: 1 }).toArray();
    },

    definitions: () => defs.find({}).toArray(),
    async findDefinition(idOrName) {
      return (await defs.findOne({ name: idOrName })) ?? defs.findOne({ _id: idOrName });
    },
    listDefinitions(q) {
      const filter: Filter<DefinitionRecord> = q.search ? { name: { $regex: escapeRegex(q.search), $options: 'i' } } : {};
      return page<DefinitionRecord>(defs, filter, q, 'name');
    },
    async saveDefinition(def: Definition, version: number) {
      const now = new Date();
      const existing = await defs.findOne({ name: def.name });
      const doc = { name: def.name, relations: def.relations, permissions: def.permissions, version, updatedAt: now,
        createdAt: existing?.createdAt ?? now };
      // Whole-document replace: FerretDB v1 does not replace an embedded document holding arrays under $set.
      // The version filter makes it conditional; the unique name index settles concurrent first writes.
      const replaced = await defs.replaceOne({ name: def.name, version: { $lt: version } }, doc);
      if (replaced.matchedCount === 0) {
        try {
          await defs.insertOne({ _id: randomUUID(), ...doc });
        } catch (e) {
          if ((e as { code?: number }).code !== 11000) throw e;
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

    async putTuple(t, revision) {
      const s = parseObject(t.subject)!;
      const o = parseObject(t.resource)!;
      const computedTuple = tupleText(t);
      const _id = tupleId(computedTuple);
      try {
        await rels.insertOne({ _id, subject: t.subject, relation: t.relation, resource: t.resource, computedTuple,
          subjectType: s.type, subjectId: s.id, resourceType: o.type, resourceId: o.id, createdAt: new Date(), revision });
        return { record: (await rels.findOne({ _id }))!, created: true };
      } catch (e) {
        if ((e as { code?: number }).code !== 11000) throw e;
        return { record: (await rels.findOne({ _id }))!, created: false };
      }
    },
    findTuple: (id) => rels.findOne({ _id: id }),
    findTupleByText: (text) => rels.findOne({ _id: tupleId(text) }),
    async deleteTuple(id) {
      const found = await rels.findOne({ _id: id });
      if (!found) return null;
      const r = await rels.deleteOne({ _id: id });
      return r.deletedCount === 1 ? found : null;
    },
    listTuples(q) {
      const filter: Filter<RelationRecord> = {};
      if (q.search) filter.computedTuple = { $regex: escapeRegex(q.search), $options: 'i' };
      if (q.subjectType) filter.subjectType = q.subjectType;
      if (q.resourceType) filter.resourceType = q.resourceType;
      return page<RelationRecord>(rels, filter, q, 'createdAt');
    },
    async tuplesOfType(type, side) {
      const filter: Filter<RelationRecord> = side === 'subject' ? { subjectType: type } : { resourceType: type };
      return (await rels.find(filter, { projection: { subject: 1, relation: 1, resource: 1 } }).toArray()).map(asTuple);
    },
    async grantsTouching(objects) {
      const found = await grants.find({ $or: [{ subject: { $in: objects } }, { resource: { $in: objects } }] }).toArray();
      return found.map(grantTuple);
    },
    async *scanTuples(batch) {
      // One streaming cursor per resource type (a filtered find per batch would rescan on FerretDB v1).
      const types = (await rels.distinct('resourceType')) as string[];
      for (const type of types.sort()) {
        const cursor = rels.find({ resourceType: type }, { projection: { subject: 1, relation: 1, resource: 1 }, batchSize: batch });
        let chunk: Tuple[] = [];
        for await (const row of cursor) {
          chunk.push(asTuple(row));
          if (chunk.length === batch) { yield chunk; chunk = []; }
        }
        if (chunk.length) yield chunk;
      }
    },
    countTuples: () => rels.estimatedDocumentCount(),

    async putGrant(g, revision) {
      const computedTuple = tupleText(g);
      try {
        await grants.insertOne({ _id: tupleId(computedTuple), subject: g.subject, permission: g.relation, resource: g.resource,
          computedTuple, resourceType: parseObject(g.resource)!.type, revision, createdAt: new Date() });
        return { created: true };
      } catch (e) {
        if ((e as { code?: number }).code !== 11000) throw e;
        return { created: false };
      }
    },
    async deleteGrant(g) {
      return (await grants.deleteOne({ _id: tupleId(tupleText(g)) })).deletedCount === 1;
    },
    async grantsOfSubject(subject) { return (await grants.find({ subject }).toArray()).map(grantTuple); },
    async grantsOnResource(resource) { return (await grants.find({ resource }).toArray()).map(grantTuple); },
    async grantsOfType(type) { return (await grants.find({ resourceType: type }).toArray()).map(grantTuple); },
    async *scanGrants(batch) {
      let last = '';
      for (;;) {
        const rows = await grants.find({ computedTuple: { $gt: last } }).sort({ computedTuple: 1 }).limit(batch).toArray();
        if (rows.length === 0) break;
        last = rows[rows.length - 1]!.computedTuple;
        yield rows.map(grantTuple);
        if (rows.length < batch) break;
      }
    },
  };
}
