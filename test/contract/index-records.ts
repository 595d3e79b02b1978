// Index records of a whole snapshot (the projection's edges and the flats, built with the engine's index maths as
// IndexBatch builds them) and the service's answers read back from an IndexStore, to compare with the evaluator.
import { createHash } from 'node:crypto';
import { tupleText, typeOf, type Tuple } from '../../src/engine/ids.js';
import { flatSet, isFlatSource, relationKey, tupleView } from '../../src/engine/index-math.js';
import { indexPlan, validity } from '../../src/engine/index-plan.js';
import type { Model } from '../../src/engine/model.js';
import type { GraphStore } from '../../src/stores/ports/graph.js';
import type { FlatRecord, IndexStore } from '../../src/stores/ports/index-store.js';

const hashOf = (v: unknown) => createHash('sha1').update(JSON.stringify(v)).digest('base64url');

export interface SnapshotRecords {
  tuples: Tuple[];
  grants: Tuple[];
  flats: FlatRecord[];
}

/**
 * Every tuple and grant as stored (valid or not), and the flats of every inheritance source and of every object that
 * had flats `before` (index work recomputes an owner's flats when the model changes, source or not: its dependencies
 * name itself).
 */
export function snapshotRecords(model: Model, tuples: Tuple[], grants: Tuple[], before?: SnapshotRecords): SnapshotRecords {
  const valid = tuples.filter((t) => model.isValid(t));
  const view = tupleView(model, valid, grants.filter((g) => model.isValidGrant(g)));
  const sources = [...new Set([...valid.filter((t) => isFlatSource(model, t)).map((t) => t.subject), ...before?.flats.map((f) => f.obj) ?? []])];
  const flats = sources.flatMap((obj) =>
    [...model.get(typeOf(obj))?.permissions.keys() ?? []].map((perm) => {
      const f = flatSet(model, view, obj, perm);
      return { id: relationKey(obj, perm), obj, perm, public: f.public, keys: f.keys, deps: f.deps, hash: hashOf(f) };
    })
  );
  return { tuples, grants, flats };
}

/** Brings the projection from `before` to `after` and writes the flats of `after` into `gen` (unchanged hashes left alone). */
export async function applyRecords(index: IndexStore, graph: GraphStore, gen: number, after: SnapshotRecords, before?: SnapshotRecords) {
  const gone = (was: Tuple[] | undefined, now: Tuple[]) => {
    const kept = new Set(now.map(tupleText));
    return (was ?? []).filter((t) => !kept.has(tupleText(t)));
  };
  await graph.sync([
    ...after.tuples.map((tuple) => ({ tuple, grant: false, present: true })),
    ...after.grants.map((tuple) => ({ tuple, grant: true, present: true })),
    ...gone(before?.tuples, after.tuples).map((tuple) => ({ tuple, grant: false, present: false })),
    ...gone(before?.grants, after.grants).map((tuple) => ({ tuple, grant: true, present: false })),
  ]);
  await index.putFlats(gen, after.flats);
}

const isRelation = (model: Model, object: string, action: string) => model.get(typeOf(object))?.relations.has(action) === true;
const admits = (model: Model, objectType: string, relation: string, subjectType: string) => {
  const allowed = model.get(objectType)?.relations.get(relation) ?? [];
  return allowed.includes('*') || allowed.includes(subjectType);
};
const withSelf = (list: string[], self: string | null) => (self !== null && !list.includes(self) ? [...list, self].sort() : list);
const ALL = 1_000_000;

/** can() as the service answers it from the index: self-access, a relation's tuple, else the plan's check. */
export async function indexCan(index: IndexStore, model: Model, s: string, a: string, o: string): Promise<boolean> {
  if (s === o) return true;
  if (!model.get(typeOf(o))) return false;
  if (isRelation(model, o, a)) return admits(model, typeOf(o), a, typeOf(s)) && index.holds(s, o, a);
  return index.check(s, o, indexPlan(model, typeOf(s), typeOf(o), a));
}

export async function indexListObjects(index: IndexStore, model: Model, s: string, a: string, type: string): Promise<string[]> {
  const self = typeOf(s) === type ? s : null;
  if (model.get(type)?.relations.has(a)) return withSelf(admits(model, type, a, typeOf(s)) ? await index.listHeld(s, type, a, 0, ALL) : [], self);
  const plan = indexPlan(model, typeOf(s), type, a);
  return withSelf(plan.public ? await index.listNamed(type, validity(model), 0, ALL) : await index.listObjects(s, type, plan, 0, ALL), self);
}

export async function indexListSubjects(index: IndexStore, model: Model, a: string, o: string, subjectType: string) {
  const self = typeOf(o) === subjectType ? o : null;
  if (isRelation(model, o, a)) {
    const held = admits(model, typeOf(o), a, subjectType) ? await index.listHolders(o, a, subjectType, 0, ALL) : [];
    return { subjects: withSelf(held, self), public: false };
  }
  const plan = indexPlan(model, subjectType, typeOf(o), a);
  const counted = await index.countSubjects(o, subjectType, plan, '');
  return { subjects: withSelf(await index.listSubjects(o, subjectType, plan, 0, ALL), self), public: counted.public };
}
