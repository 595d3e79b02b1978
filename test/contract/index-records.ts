// Index records of a whole snapshot, built with the engine's index maths as IndexBatch builds them, and the service's
// answers read back from an IndexStore (relations from holds, self-access added), to compare with the evaluator.
import { createHash } from 'node:crypto';
import { typeOf, type Tuple } from '../../src/engine/ids.js';
import { flatSet, grantKey, isFlatSource, objectRow, relationKey, tupleView } from '../../src/engine/index-math.js';
import type { Model } from '../../src/engine/model.js';
import type { FlatRecord, HoldChange, IndexStore, ObjectRows } from '../../src/stores/ports/index-store.js';

const hashOf = (v: unknown) => createHash('sha1').update(JSON.stringify(v)).digest('base64url');

export interface SnapshotRecords { rows: ObjectRows[]; flats: FlatRecord[]; holds: HoldChange[] }

/** Rows of every object a valid tuple or grant names, flats of every inheritance source, the keys every subject holds. */
export function snapshotRecords(model: Model, tuples: Tuple[], grants: Tuple[]): SnapshotRecords {
  const valid = tuples.filter((t) => model.isValid(t));
  const validGrants = grants.filter((g) => model.isValidGrant(g));
  const view = tupleView(model, valid, validGrants);
  const named = [...new Set([...valid, ...validGrants].flatMap((t) => [t.subject, t.resource]))];
  const rows = named.filter((o) => model.get(typeOf(o))).map((obj) => {
    const r = [...model.get(typeOf(obj))!.permissions.keys()].map((action) => ({ action, ...objectRow(model, view, obj, action) }));
    return { obj, type: typeOf(obj), rows: r, hash: hashOf(r) };
  });
  const sources = [...new Set(valid.filter((t) => isFlatSource(model, t)).map((t) => t.subject))];
  const flats = sources.flatMap((obj) => [...model.get(typeOf(obj))?.permissions.keys() ?? []].map((perm) => {
    const f = flatSet(model, view, obj, perm);
    return { id: relationKey(obj, perm), obj, public: f.public, keys: f.keys, deps: f.deps, hash: hashOf(f) };
  }));
  const holds = [
    ...valid.map((t) => ({ subject: t.subject, key: relationKey(t.resource, t.relation), present: true })),
    ...validGrants.map((g) => ({ subject: g.subject, key: grantKey(g.resource, g.relation), present: true })),
  ];
  return { rows, flats, holds };
}

/**
 * Brings generation `gen` from `before` to `after` as index work does: changed flats, holds added and removed, rows put
 * (unchanged hashes left alone) and the rows of objects no longer named deleted.
 */
export async function applyRecords(index: IndexStore, gen: number, after: SnapshotRecords, before?: SnapshotRecords) {
  const kept = new Set(after.holds.map((h) => `${h.subject} ${h.key}`));
  const gone = (before?.holds ?? []).filter((h) => !kept.has(`${h.subject} ${h.key}`)).map((h) => ({ ...h, present: false }));
  await index.putFlats(gen, after.flats);
  await index.syncHolds(gen, [...after.holds, ...gone]);
  await index.putRows(gen, after.rows);
  const named = new Set(after.rows.map((r) => r.obj));
  const dropped = (before?.rows ?? []).map((r) => r.obj).filter((o) => !named.has(o));
  if (dropped.length) await index.deleteRows(gen, dropped);
}

const isRelation = (model: Model, object: string, action: string) => model.get(typeOf(object))?.relations.has(action) === true;
const withSelf = (list: string[], self: string | null) => (self !== null && !list.includes(self) ? [...list, self].sort() : list);
const ALL = 1_000_000;

/** can() as the service answers it from the index: self-access, a relation's own key, else the object's row. */
export async function indexCan(index: IndexStore, model: Model, s: string, a: string, o: string): Promise<boolean> {
  if (s === o) return true;
  if (isRelation(model, o, a)) return index.holds(s, relationKey(o, a));
  return (await index.check(s, o, a)).allowed;
}

export async function indexListObjects(index: IndexStore, model: Model, s: string, a: string, type: string): Promise<string[]> {
  const relation = model.get(type)?.relations.has(a) === true;
  const list = relation ? await index.listHeld(s, type, a, 0, ALL) : await index.listObjects(s, a, type, 0, ALL);
  return withSelf(list, typeOf(s) === type ? s : null);
}

export async function indexListSubjects(index: IndexStore, model: Model, a: string, o: string, subjectType: string) {
  const self = typeOf(o) === subjectType ? o : null;
  if (isRelation(model, o, a)) {
    return { subjects: withSelf(await index.listHolders(relationKey(o, a), subjectType, 0, ALL), self), public: false };
  }
  const counted = await index.countSubjects(o, a, subjectType, '');
  return { subjects: withSelf(await index.listSubjects(o, a, subjectType, 0, ALL), self), public: counted.public };
}
