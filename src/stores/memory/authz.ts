// In-memory twin of the MongoDB authz store: definitions, relationship tuples and direct grants, in plain Maps.
import { randomUUID } from 'node:crypto';
import { parseObject, tupleText, type Tuple } from '../../engine/ids.js';
import type { DefinitionRecord, DefinitionStore } from '../ports/definitions.js';
import { grantTuple, type GrantDoc, type GrantStore } from '../ports/grants.js';
import type { ListQuery, Page } from '../ports/paging.js';
import type { RelationRecord, TupleReads, TupleWrites } from '../ports/tuples.js';
import { tupleId } from '../tuple-id.js';
import { copy } from './copy.js';
import { compareValues } from './mongo-order.js';

const asTuple = (r: { subject: string; relation: string; resource: string }): Tuple => ({ subject: r.subject, relation: r.relation, resource: r.resource });

async function* batches<T, U>(rows: T[], size: number, map: (row: T) => U): AsyncGenerator<U[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size).map(map);
}

/** A list query's order, as the MongoDB adapter sorts: the field (`-field` descending), then `_id`. */
function listOrder(sort: string | undefined, fallback: string) {
  const field = sort ?? fallback;
  const [name, dir] = field.startsWith('-') ? [field.slice(1), -1] : [field, 1];
  return (a: DefinitionRecord, b: DefinitionRecord) =>
    compareValues((a as unknown as Record<string, unknown>)[name], (b as unknown as Record<string, unknown>)[name]) * dir || compareValues(a._id, b._id);
}

function relationRecord(t: Tuple, revision: number, createdAt: Date): RelationRecord {
  const s = parseObject(t.subject)!;
  const o = parseObject(t.resource)!;
  const computedTuple = tupleText(t);
  return { _id: tupleId(computedTuple), subject: t.subject, relation: t.relation, resource: t.resource, computedTuple, subjectType: s.type, subjectId: s.id, resourceType: o.type,
    resourceId: o.id, createdAt, revision };
}

/** Definitions, versioned: a save never goes back, and a name is unique. */
function memoryDefinitions(): DefinitionStore {
  const defs = new Map<string, DefinitionRecord>();
  const byName = (name: string) => [...defs.values()].find((d) => d.name === name) ?? null;
  return {
    async definitions() {
      return copy([...defs.values()]);
    },
    async findDefinition(idOrName) {
      return copy(byName(idOrName) ?? defs.get(idOrName) ?? null);
    },
    async listDefinitions(q: ListQuery): Promise<Page<DefinitionRecord>> {
      const needle = q.search?.toLowerCase();
      const all = [...defs.values()].filter((d) => !needle || d.name.toLowerCase().includes(needle)).sort(listOrder(q.sort, 'name'));
      return { items: copy(all.slice(q.skip, q.skip + q.limit)), count: all.length };
    },
    async saveDefinition(def, version) {
      const now = new Date();
      const existing = byName(def.name);
      if (existing && existing.version >= version) return { record: copy(existing), written: false };
      const doc: DefinitionRecord = { _id: existing?._id ?? randomUUID(), name: def.name, relations: copy(def.relations), permissions: copy(def.permissions), version,
        updatedAt: now, createdAt: existing?.createdAt ?? now };
      defs.set(doc._id, doc);
      return { record: copy(doc), written: true };
    },
    async deleteDefinition(name) {
      const found = byName(name);
      if (found) defs.delete(found._id);
      return copy(found);
    },
  };
}

/** Relationship tuples keyed by the id of their text, so an insert is idempotent. */
function memoryTuples(): TupleReads & TupleWrites {
  const rels = new Map<string, RelationRecord>();
  return {
    async insertTuples(tuples, revision) {
      const createdAt = new Date();
      const created = new Set<string>();
      const records = tuples.map((t) => {
        const doc = relationRecord(t, revision, createdAt);
        const stored = rels.get(doc._id);
        if (stored) return copy(stored);
        rels.set(doc._id, doc);
        created.add(doc.computedTuple);
        return copy(doc);
      });
      return { records, created };
    },
    async findTuple(id) {
      return copy(rels.get(id) ?? null);
    },
    async findTuples(texts) {
      return texts.flatMap((text) => {
        const r = rels.get(tupleId(text));
        return r ? [copy(r)] : [];
      });
    },
    async deleteTuple(id) {
      const found = rels.get(id) ?? null;
      rels.delete(id);
      return found;
    },
    async *tuplesMatching(match, batch, opts) {
      const rows = [...rels.values()].filter((r) => Object.entries(match).every(([k, v]) => (r as unknown as Record<string, unknown>)[k] === v));
      if (opts?.bySubject) rows.sort((a, b) => compareValues(a.subject, b.subject) || compareValues(a._id, b._id));
      yield* batches(rows, batch, copy);
    },
    async presentTuples(texts) {
      return new Set(texts.filter((t) => rels.has(tupleId(t))));
    },
    async deleteTupleTexts(texts) {
      let n = 0;
      for (const text of texts) if (rels.delete(tupleId(text))) n++;
      return n;
    },
    async *scanTuples(batch, upTo) {
      yield* batches([...rels.values()].filter((r) => upTo === undefined || r.revision <= upTo), batch, asTuple);
    },
    async countTuples() {
      return rels.size;
    },
  };
}

/** Direct grants keyed by the id of their text. */
function memoryGrants(): GrantStore {
  const grants = new Map<string, GrantDoc>();
  return {
    async putGrant(g, revision) {
      const computedTuple = tupleText(g);
      const id = tupleId(computedTuple);
      if (grants.has(id)) return { created: false };
      grants.set(id, { _id: id, subject: g.subject, permission: g.relation, resource: g.resource, computedTuple, resourceType: parseObject(g.resource)!.type, revision,
        createdAt: new Date() });
      return { created: true };
    },
    async deleteGrant(g) {
      return grants.delete(tupleId(tupleText(g)));
    },
    async *grantsInvolving(object, batch) {
      // As the adapter: those naming it as resource, then those naming it as subject, never mixed in one batch.
      yield* batches([...grants.values()].filter((g) => g.resource === object), batch, grantTuple);
      yield* batches([...grants.values()].filter((g) => g.subject === object), batch, grantTuple);
    },
    async presentGrants(texts) {
      return new Set(texts.filter((t) => grants.has(tupleId(t))));
    },
    async countGrants() {
      return grants.size;
    },
    async *scanGrants(batch, upTo) {
      yield* batches([...grants.values()].filter((g) => upTo === undefined || g.revision <= upTo), batch, grantTuple);
    },
  };
}

/** Every capability of the MongoDB authz store, as `mongoAuthzStore` gives them. */
export function memoryAuthzStore(): DefinitionStore & TupleReads & TupleWrites & GrantStore {
  return { ...memoryDefinitions(), ...memoryTuples(), ...memoryGrants() };
}
