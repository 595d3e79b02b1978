// The index store in memory: what src/stores/neo4j/index-store.ts answers, from flats in Maps and a MemoryGraph's tuples.
import { byCodeUnits, typeOf } from '../../engine/ids.js';
import { slotOf, splitKey, type IndexPlan } from '../../engine/index-plan.js';
import type { FlatRecord, IndexStore, ListCount } from '../ports/index-store.js';
import type { MemoryGraph } from './graph-state.js';

/** Neo4j orders strings by their UTF-16 code units, as `<` does (localeCompare would not). */
const page = (ids: Iterable<string>, skip: number, limit: number) => [...new Set(ids)].sort(byCodeUnits).slice(skip, skip + limit);
const countOf = (ids: Iterable<string>, pivot: string): ListCount => {
  const all = new Set(ids);
  let below = 0;
  for (const id of all) if (id < pivot) below++;
  return { count: all.size, below, has: all.has(pivot) };
};

type MemFlat = Omit<FlatRecord, 'id'>;

/** The IndexMeta node and each generation's flats by id (`x#perm`), as the Flat nodes of one generation. */
class MemIndex {
  meta: { gen: number; building: number | null } | null = null;
  readonly gens = new Map<number, Map<string, MemFlat>>();
  constructor(readonly g: MemoryGraph) {}
  flats(gen: number): Map<string, MemFlat> {
    let f = this.gens.get(gen);
    if (!f) {
      f = new Map();
      this.gens.set(gen, f);
    }
    return f;
  }
  live(): Map<string, MemFlat> {
    return this.meta ? this.flats(this.meta.gen) : new Map();
  }
  /** Stored tuples (or grants) out of `subject` and into `object`, as edges of the projection. */
  out(subject: string, grant = false) {
    return this.g.resolve(this.g.outOf.get(subject) ?? []).filter((e) => e.grant === grant).map((e) => e.tuple);
  }
  into(object: string, grant = false) {
    return this.g.resolve(this.g.into.get(object) ?? []).filter((e) => e.grant === grant).map((e) => e.tuple);
  }
  ofType(type: string): string[] {
    return [...this.g.objects].filter(([, t]) => t === type).map(([k]) => k);
  }
}

export function memoryIndexStore(graph: MemoryGraph): IndexStore {
  const ix = new MemIndex(graph);
  return { ...generationCalls(ix), ...writeCalls(ix), ...decisions(ix), ...lists(ix) };
}

/** The arrow tuples into `object` that the plan follows, with the flats of their subjects in the live generation. */
function arrowsInto(ix: MemIndex, object: string, plan: IndexPlan) {
  const live = ix.live();
  return ix.into(object).flatMap((t) => {
    const arrow = plan.arrows.find((a) => a.rel === t.relation);
    if (!arrow || !arrow.types.includes(typeOf(t.subject))) return [];
    const flats = arrow.targets.flatMap((perm) => {
      const f = live.get(`${t.subject}#${perm}`);
      return f ? [f] : [];
    });
    return [{ x: t.subject, rel: t.relation, targets: arrow.targets, flats }];
  });
}

/** The subject's side of a check: the objects its tuples and grants in the plan reach, and whether it holds a key. */
function subjectSide(ix: MemIndex, subject: string, plan: IndexPlan) {
  const tuples = ix.out(subject);
  const grants = ix.out(subject, true);
  const held = new Set([...tuples.map((t) => `${t.resource}#${t.relation}`), ...grants.map((t) => `${t.resource}#${t.relation}!`)]);
  return {
    direct: new Set([...tuples.filter((t) => plan.direct.includes(t.relation)), ...grants.filter((t) => plan.grants.includes(t.relation))].map((t) => t.resource)),
    counts: (key: string) => {
      const { obj, rel } = splitKey(key);
      return held.has(key) && plan.slots.includes(slotOf(typeOf(obj), rel));
    },
  };
}

/**
 * can(S, a, O) as check-many computes it, from O's side read once (its arrow tuples and their flats). `publicFlats`
 * false: only through keys the subject holds (what subjects-of lists).
 */
function objectSide(ix: MemIndex, object: string, plan: IndexPlan, publicFlats = true) {
  const known = ix.g.objects.has(object);
  const arrows = known ? arrowsInto(ix, object, plan) : [];
  const anyPublic = publicFlats && arrows.some((a) => a.flats.some((f) => f.public));
  return (s: ReturnType<typeof subjectSide>) =>
    plan.public || (known && (anyPublic || s.direct.has(object)
      || arrows.some((a) => a.flats.some((f) => f.keys.some(s.counts)) || a.targets.some((rel) => s.counts(`${a.x}#${rel}`)))));
}

function generationCalls(ix: MemIndex): Pick<IndexStore, 'meta' | 'migrate' | 'setBuilding' | 'switchGeneration' | 'dropGeneration'> {
  return {
    async meta() {
      ix.meta ??= { gen: 1, building: null };
      return { ...ix.meta };
    },
    async migrate() {
      return false;
    },
    async setBuilding(gen) {
      if (ix.meta) ix.meta.building = gen;
    },
    async switchGeneration(gen) {
      if (ix.meta) ix.meta = { gen, building: null };
    },
    async dropGeneration(gen) {
      const n = ix.gens.get(gen)?.size ?? 0;
      ix.gens.delete(gen);
      return n;
    },
  };
}

function writeCalls(ix: MemIndex): Pick<IndexStore, 'putFlats' | 'objectsUnder' | 'flatsDependingOn' | 'flattened'> {
  const known = (o: string) => ix.g.objects.has(o);
  return {
    async putFlats(gen, flats) {
      const all = ix.flats(gen);
      const changed: string[] = [];
      for (const { id, ...fl } of flats) {
        // As put-flats' MATCHes: a flat of an object the projection lacks is not written, a key or dep on one is left out.
        if (!known(fl.obj) || all.get(id)?.hash === fl.hash) continue;
        all.set(id, { ...fl, keys: fl.keys.filter((k) => known(splitKey(k).obj)), deps: fl.deps.filter(known) });
        changed.push(id);
      }
      // As drop-other-flats: an owner's flats of permissions not given for it go.
      const given = new Set(flats.map((f) => `${f.obj}#${f.perm}`));
      const owners = new Set(flats.map((f) => f.obj));
      for (const [id, f] of all) if (owners.has(f.obj) && !given.has(`${f.obj}#${f.perm}`)) all.delete(id);
      return changed;
    },
    async objectsUnder(gen, flatIds, limit) {
      const all = ix.flats(gen);
      const out = new Set<string>();
      for (const id of flatIds) {
        const f = all.get(id);
        for (const t of f ? ix.out(f.obj) : []) {
          if (out.size >= limit) return [...out];
          out.add(t.resource);
        }
      }
      return [...out];
    },
    async flatsDependingOn(gen, objects) {
      const wanted = new Set(objects);
      return [...new Set([...ix.flats(gen).values()].filter((f) => f.deps.some((d) => wanted.has(d))).map((f) => f.obj))];
    },
    async flattened(gen, objects) {
      const owners = new Set([...ix.flats(gen).values()].map((f) => f.obj));
      return new Set(objects.filter((o) => owners.has(o)));
    },
  };
}

function decisions(ix: MemIndex): Pick<IndexStore, 'check' | 'records' | 'holds'> {
  return {
    async check(subject, object, plan) {
      return objectSide(ix, object, plan)(subjectSide(ix, subject, plan));
    },
    async records(subject, object, plan) {
      const arrows = arrowsInto(ix, object, plan).slice(0, 1000)
        .map((a) => ({ x: a.x, rel: a.rel, flats: a.flats.map((f) => ({ perm: f.perm, public: f.public, keys: [...f.keys] })) }));
      const held = ix.g.objects.has(subject) ? [
        ...ix.out(subject).map((t) => ({ key: `${t.resource}#${t.relation}`, slot: slotOf(typeOf(t.resource), t.relation) })),
        ...ix.out(subject, true).map((t) => ({ key: `${t.resource}#${t.relation}!`, slot: slotOf(typeOf(t.resource), `${t.relation}!`) })),
      ].slice(0, 1000) : null;
      return { gen: ix.meta?.gen ?? 0, arrows, held };
    },
    async holds(subject, object, relation) {
      return ix.out(subject).some((t) => t.resource === object && t.relation === relation);
    },
  };
}

function lists(
  ix: MemIndex,
): Pick<IndexStore, 'listObjects' | 'countObjects' | 'listNamed' | 'countNamed' | 'listSubjects' | 'countSubjects' | 'listHeld' | 'countHeld' | 'listHolders' | 'countHolders'> {
  // The statements reach objects only through their edges and leave the action's `*` to listNamed.
  const objectsFor = (subject: string, type: string, plan: IndexPlan) => {
    const side = subjectSide(ix, subject, plan);
    return ix.ofType(type).filter((o) => objectSide(ix, o, { ...plan, public: false })(side));
  };
  const subjectsFor = (object: string, subjectType: string, plan: IndexPlan) => {
    const allowed = objectSide(ix, object, { ...plan, public: false }, false);
    return ix.ofType(subjectType).filter((s) => allowed(subjectSide(ix, s, plan)));
  };
  const named = (type: string, v: { allowed: Record<string, string[]>; perms: string[] }) =>
    ix.ofType(type).filter((o) => {
      const ok = (subjectType: string, resourceType: string, rel: string) => {
        const allowedTypes = v.allowed[slotOf(resourceType, rel)] ?? [];
        return allowedTypes.includes('*') || allowedTypes.includes(subjectType);
      };
      return ix.into(o).some((t) => ok(typeOf(t.subject), type, t.relation))
        || ix.out(o).some((t) => ok(type, typeOf(t.resource), t.relation))
        || [...ix.into(o, true), ...ix.out(o, true)].some((g) => v.perms.includes(slotOf(typeOf(g.resource), g.relation)));
    });
  const heldObjects = (subject: string, type: string, relation: string) =>
    ix.out(subject).filter((t) => t.relation === relation && typeOf(t.resource) === type).map((t) => t.resource);
  const holdersOf = (object: string, relation: string, subjectType: string) =>
    ix.into(object).filter((t) => t.relation === relation && typeOf(t.subject) === subjectType).map((t) => t.subject);
  return {
    async listObjects(subject, type, plan, skip, limit) {
      return page(objectsFor(subject, type, plan), skip, limit);
    },
    async countObjects(subject, type, plan, pivot) {
      return countOf(objectsFor(subject, type, plan), pivot);
    },
    async listNamed(type, v, skip, limit) {
      return page(named(type, v), skip, limit);
    },
    async countNamed(type, v, pivot) {
      return countOf(named(type, v), pivot);
    },
    async listSubjects(object, subjectType, plan, skip, limit) {
      return page(subjectsFor(object, subjectType, plan), skip, limit);
    },
    async countSubjects(object, subjectType, plan, pivot) {
      const flatPublic = arrowsInto(ix, object, plan).some((a) => a.flats.some((f) => f.public));
      return { ...countOf(subjectsFor(object, subjectType, plan), pivot), public: plan.public || flatPublic };
    },
    async listHeld(subject, type, relation, skip, limit) {
      return page(heldObjects(subject, type, relation), skip, limit);
    },
    async countHeld(subject, type, relation, pivot) {
      return countOf(heldObjects(subject, type, relation), pivot);
    },
    async listHolders(object, relation, subjectType, skip, limit) {
      return page(holdersOf(object, relation, subjectType), skip, limit);
    },
    async countHolders(object, relation, subjectType, pivot) {
      return countOf(holdersOf(object, relation, subjectType), pivot);
    },
  };
}
