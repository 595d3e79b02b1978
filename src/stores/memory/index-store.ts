// The index store in memory: what src/stores/neo4j/index-store.ts answers, from Maps (test/contract/index-store.contract.ts).
import type { IndexRecords, IndexStore, ListCount } from '../ports/index-store.js';
import { Generation, type MemRow } from './index-generation.js';

/** Neo4j orders strings by their UTF-16 code units, as `<` does (localeCompare would not). */
export const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const page = (ids: Iterable<string>, skip: number, limit: number) => [...new Set(ids)].sort(byCodeUnits).slice(skip, skip + limit);
const countOf = (ids: Iterable<string>, pivot: string): ListCount => {
  const all = new Set(ids);
  let below = 0;
  for (const id of all) if (id < pivot) below++;
  return { count: all.size, below, has: all.has(pivot) };
};

/** The store's state: the IndexMeta node and each generation's graph. */
class MemIndex {
  meta: { gen: number; building: number | null } | null = null;
  readonly gens = new Map<number, Generation>();
  writable(gen: number): Generation {
    let g = this.gens.get(gen);
    if (!g) { g = new Generation(); this.gens.set(gen, g); }
    return g;
  }
  /** The live generation, as every read finds it through the IndexMeta node; none before `meta` first ran. */
  live(): Generation | undefined { return this.meta ? this.gens.get(this.meta.gen) : undefined; }
}

export function memoryIndexStore(): IndexStore {
  const ix = new MemIndex();
  return { ...generationCalls(ix), ...writeCalls(ix), ...pointReads(ix), ...listReads(ix) };
}

function objectsFor(g: Generation, subject: string, action: string, type: string): Set<string> {
  const out = new Set<string>();
  const take = (rowId: string) => {
    const r = g.rows.get(rowId);
    if (r && r.type === type && r.action === action) out.add(r.obj);
  };
  for (const k of g.actors.get(subject) ?? []) {
    for (const id of g.rowsGiving.get(k) ?? []) take(id);
    for (const f of g.flatsGiving.get(k) ?? []) for (const id of g.referring.get(f) ?? []) take(id);
  }
  for (const id of g.rowsOfKind.get(`${type} ${action}`) ?? []) if (g.rows.get(id)!.public) take(id);
  for (const [f, flat] of g.flats) if (flat.public) for (const id of g.referring.get(f) ?? []) take(id);
  return out;
}

function subjectsFor(g: Generation | undefined, row: MemRow | undefined, subjectType: string) {
  const out = new Set<string>();
  if (!g || !row) return { subjects: out, public: false };
  const reach = g.reach(row);
  for (const k of reach.keys) for (const s of g.holders.get(k) ?? []) if (s.startsWith(`${subjectType}:`)) out.add(s);
  return { subjects: out, public: reach.public };
}

/** The IndexMeta node: which generation is live and which is being built. */
function generationCalls(ix: MemIndex): Pick<IndexStore, 'meta' | 'setBuilding' | 'switchGeneration' | 'dropGeneration'> {
  return {
    async meta() {
      ix.meta ??= { gen: 1, building: null };
      return { ...ix.meta };
    },
    async setBuilding(gen) { if (ix.meta) ix.meta.building = gen; },
    async switchGeneration(gen) { if (ix.meta) ix.meta = { gen, building: null }; },
    async dropGeneration(gen) {
      const n = ix.gens.get(gen)?.nodes ?? 0;
      ix.gens.delete(gen);
      return n;
    },
  };
}

/** Writes to one generation, and the questions the indexer asks of it while writing. */
function writeCalls(ix: MemIndex): Pick<IndexStore, 'putRows' | 'deleteRows' | 'putFlats' | 'rowsReferring' | 'flatsDependingOn' | 'flattened' | 'syncHolds'> {
  return {
    async putRows(gen, objects) {
      const g = ix.writable(gen);
      const changed: string[] = [];
      for (const o of objects) {
        const olds = [...g.rowsOfObject.get(o.obj) ?? []].map((id) => g.rows.get(id)!);
        if (olds.length === o.rows.length && olds.every((x) => x.hash === o.hash)) continue;
        for (const x of olds) g.deleteRow(`${x.obj}#${x.action}`);
        for (const row of o.rows) {
          g.createRow({ obj: o.obj, type: o.type, action: row.action, public: row.public, hash: o.hash, keys: [...row.keys], refs: [...row.refs] });
        }
        changed.push(o.obj);
      }
      return changed;
    },
    async deleteRows(gen, objects) {
      const g = ix.gens.get(gen);
      if (g) for (const obj of objects) for (const id of [...g.rowsOfObject.get(obj) ?? []]) g.deleteRow(id);
    },
    async putFlats(gen, flats) {
      const g = ix.writable(gen);
      const changed: string[] = [];
      for (const fl of flats) {
        if (g.flatNode(fl.id).hash === fl.hash) continue;
        g.rewriteFlat(fl.id, fl);
        changed.push(fl.id);
      }
      return changed;
    },
    async rowsReferring(gen, flatIds, limit) {
      const g = ix.gens.get(gen);
      const out = new Set<string>();
      for (const f of flatIds) {
        for (const id of g?.referring.get(f) ?? []) {
          if (out.size >= limit) return [...out];
          out.add(g!.rows.get(id)!.obj);
        }
      }
      return [...out];
    },
    async flatsDependingOn(gen, objects) {
      const g = ix.gens.get(gen);
      const out = new Set<string>();
      for (const o of objects) for (const f of g?.dependents.get(o) ?? []) out.add(g!.flats.get(f)!.obj!);
      return [...out];
    },
    async flattened(gen, objects) {
      const g = ix.gens.get(gen);
      return new Set(objects.filter((o) => (g?.flatsOfObject.get(o)?.size ?? 0) > 0));
    },
    async syncHolds(gen, items) {
      const g = ix.writable(gen);
      for (const it of items) g.hold(it.subject, it.key, it.present);
    },
  };
}

/** Reads of one row or one subject in the live generation. */
function pointReads(ix: MemIndex): Pick<IndexStore, 'check' | 'records' | 'holds'> {
  return {
    async check(subject, object, action) {
      const g = ix.live();
      const row = g?.rows.get(`${object}#${action}`);
      if (!g || !row) return { rowExists: false, allowed: false };
      const reach = g.reach(row);
      const held = g.actors.get(subject);
      return { rowExists: true, allowed: reach.public || (held !== undefined && [...reach.keys].some((k) => held.has(k))) };
    },
    async records(subject, object, action): Promise<IndexRecords> {
      const g = ix.live();
      const row = g?.rows.get(`${object}#${action}`);
      const held = g?.actors.get(subject);
      return {
        gen: ix.meta?.gen ?? 0,
        objectIndex: row ? {
          id: `${object}#${action}`, public: row.public, keys: [...row.keys],
          refs: row.refs.map((id) => { const f = g!.flats.get(id)!; return { id, public: f.public, keys: [...f.keys] }; }),
        } : null,
        subjectIndex: held ? { subject, keys: [...held] } : null,
      };
    },
    async holds(subject, key) { return ix.live()?.actors.get(subject)?.has(key) ?? false; },
  };
}

/** The lists and their counts, paged in code-unit order, from the live generation. */
function listReads(ix: MemIndex): Pick<IndexStore, 'listObjects' | 'countObjects' | 'listSubjects' | 'countSubjects' | 'listHeld' | 'countHeld' | 'listHolders' | 'countHolders'> {
  const heldObjects = (subject: string, type: string, relation: string) => {
    const suffix = `#${relation}`;
    const held = [...ix.live()?.actors.get(subject) ?? []];
    return held.filter((k) => k.startsWith(`${type}:`) && k.endsWith(suffix)).map((k) => k.slice(0, k.length - suffix.length));
  };
  const holdersOf = (key: string, subjectType: string) =>
    [...ix.live()?.holders.get(key) ?? []].filter((s) => s.startsWith(`${subjectType}:`));
  return {
    async listObjects(subject, action, type, skip, limit) {
      const g = ix.live();
      return g ? page(objectsFor(g, subject, action, type), skip, limit) : [];
    },
    async countObjects(subject, action, type, pivot) {
      const g = ix.live();
      return countOf(g ? objectsFor(g, subject, action, type) : [], pivot);
    },
    async listSubjects(object, action, subjectType, skip, limit) {
      const g = ix.live();
      return page(subjectsFor(g, g?.rows.get(`${object}#${action}`), subjectType).subjects, skip, limit);
    },
    async countSubjects(object, action, subjectType, pivot) {
      const g = ix.live();
      const found = subjectsFor(g, g?.rows.get(`${object}#${action}`), subjectType);
      return { ...countOf(found.subjects, pivot), public: found.public };
    },
    async listHeld(subject, type, relation, skip, limit) { return page(heldObjects(subject, type, relation), skip, limit); },
    async countHeld(subject, type, relation, pivot) { return countOf(heldObjects(subject, type, relation), pivot); },
    async listHolders(key, subjectType, skip, limit) { return page(holdersOf(key, subjectType), skip, limit); },
    async countHolders(key, subjectType, pivot) { return countOf(holdersOf(key, subjectType), pivot); },
  };
}
