// The tuple graph in memory: what src/stores/neo4j/graph.ts answers (cypher/projection.cypher), over a MemoryGraph.
import { byCodeUnits, tupleText, type Tuple } from '../../engine/ids.js';
import type { GraphStore } from '../ports/graph.js';
import type { MemoryGraph } from './graph-state.js';

const split = (edges: Array<{ tuple: Tuple; grant: boolean }>) => ({
  tuples: edges.filter((e) => !e.grant).map((e) => ({ ...e.tuple })),
  grants: edges.filter((e) => e.grant).map((e) => ({ ...e.tuple })),
});
/** Paths from the subject to the resource are searched this deep, as tuples-between bounds them. */
const DEPTH = 10;

export function memoryGraphStore(g: MemoryGraph): GraphStore {
  /** Objects reachable over TUPLE edges in 1 to DEPTH steps, following `next`. */
  const reach = (start: string, next: (o: string) => string[]) => {
    const seen = new Set<string>();
    let level = [start];
    for (let d = 0; d < DEPTH && level.length; d++) {
      const found: string[] = [];
      for (const o of level) {
        for (const x of next(o)) {
          if (!seen.has(x)) {
            seen.add(x);
            found.push(x);
          }
        }
      }
      level = found;
    }
    return seen;
  };
  const tuplesOut = (o: string) => g.resolve(g.outOf.get(o) ?? []).filter((e) => !e.grant);
  const tuplesIn = (o: string) => g.resolve(g.into.get(o) ?? []).filter((e) => !e.grant);

  return {
    async sync(changes, mark = '') {
      // Present edges first, then deletions, as the adapter runs them.
      for (const c of changes) if (c.present) g.put(c.tuple, c.grant, mark);
      for (const c of changes) if (!c.present) g.remove(tupleText(c.tuple), c.grant);
    },
    async on(objects, limit) {
      const edges = objects.flatMap((o) => g.resolve(g.into.get(o) ?? []));
      return split(edges.slice(0, limit ?? edges.length));
    },
    async from(objects, limit) {
      if (limit <= 0) return [];
      const out = new Set<string>();
      for (const o of objects) for (const e of g.resolve(g.outOf.get(o) ?? [])) out.add(e.tuple.resource);
      return [...out].slice(0, limit);
    },
    async ofType(type, limit) {
      return [...g.objects].filter(([, t]) => t === type).map(([k]) => k).slice(0, limit);
    },
    async namedAsSubject(items) {
      const out = new Set<string>();
      for (const it of items) {
        for (const e of g.resolve(g.outOf.get(it.key) ?? [])) {
          const slot = `${g.objects.get(e.tuple.resource)}#${e.tuple.relation}`;
          if ((e.grant ? it.grants : it.tuples).includes(slot)) out.add(it.key);
        }
      }
      return out;
    },
    async direct(subject, resource) {
      return split(g.resolve(g.outOf.get(subject) ?? []).filter((e) => e.tuple.resource === resource));
    },
    async touchingType(type, after, objects) {
      const from = after || `${type}:`;
      const keys = [...g.objects.keys()].filter((k) => k > from && k < `${type};`).sort(byCodeUnits).slice(0, objects);
      if (keys.length === 0) return { tuples: [], grants: [], next: null };
      const edges = keys.flatMap((k) => [
        ...g.resolve(g.into.get(k) ?? []),
        ...tuplesOut(k).filter((e) => !e.tuple.resource.startsWith(`${type}:`)),
      ]);
      return { ...split(edges), next: keys.length < objects ? null : keys.at(-1)! };
    },
    async edgesAfter(grant, after, limit, mark) {
      return [...g.edges(grant).values()].filter((e) => e.key > after).sort((a, b) => byCodeUnits(a.key, b.key)).slice(0, limit)
        .map((e) => ({ key: e.key, marked: e.mark === mark }));
    },
    async tuplesBetween(subject, resource) {
      if (!g.objects.has(subject) || !g.objects.has(resource)) return [];
      const forward = reach(subject, (o) => tuplesOut(o).map((e) => e.tuple.resource)).add(subject);
      const backward = reach(resource, (o) => tuplesIn(o).map((e) => e.tuple.subject)).add(resource);
      const between = new Set([...forward].filter((o) => backward.has(o)));
      const out = new Map<string, Tuple>();
      for (const a of between) for (const e of tuplesOut(a)) if (between.has(e.tuple.resource)) out.set(e.key, { ...e.tuple });
      return [...out.values()].slice(0, 10_000);
    },
  };
}
