// The admin list of relations in memory: what src/stores/neo4j/tuple-listing.ts answers (cypher/listing.cypher), over
// the TUPLE edges of a MemoryGraph, with the same caps on counts and the same budget for broad searches.
import { byCodeUnits, typeOf } from '../../engine/ids.js';
import { LIST_LIMITS, type TupleListing, type TupleListPage, type TupleListQuery } from '../ports/tuple-listing.js';
import type { MemoryGraph } from './graph-state.js';

export function memoryTupleListing(g: MemoryGraph, limits = LIST_LIMITS): TupleListing {
  /** Keys in the range the query's filters select, in its order (the range index the adapter reads). */
  const range = (q: TupleListQuery, prefix: string) => {
    const keys = [...g.tuples.values()]
      .filter((e) => e.key.startsWith(prefix) && (q.resourceType === undefined || typeOf(e.tuple.resource) === q.resourceType))
      .map((e) => e.key).sort(byCodeUnits);
    return q.descending ? keys.reverse() : keys;
  };
  /** The text index and the pending edges read beside it: every edge, caught up or not. */
  const matches = (key: string, search: string) => key.toLowerCase().includes(search.toLowerCase());
  /** The pending edges in key order, as the adapter's index gives them. */
  const catchUp = (limit: number) => {
    const next = [...g.tuples.values()].filter((e) => !e.searchable).sort((a, b) => byCodeUnits(a.key, b.key)).slice(0, Math.max(0, limit));
    for (const e of next) e.searchable = true;
    return next.length;
  };

  /** One type filter, or none, is counted exactly (Neo4j's count store); anything else up to the cap. */
  function count(q: TupleListQuery, prefix: string): { count: number; exact: boolean } {
    const { subjectType: st, resourceType: rt } = q;
    const n = range(q, prefix).length;
    const exact = (st === undefined && rt === undefined) || (rt === undefined && st !== 'Object') || (st === undefined && rt !== 'Object');
    if (exact) return { count: n, exact: true };
    const capped = Math.min(n, limits.cap);
    return { count: capped, exact: capped < limits.cap };
  }

  function search(q: TupleListQuery, prefix: string): TupleListPage {
    const all = [...g.tuples.keys()].filter((k) => matches(k, q.search!)).sort(byCodeUnits);
    // The text index yields at most `cap` matches, in no order the adapter relies on (here: key order).
    const seen = all.slice(0, limits.cap);
    const inRange = new Set(range(q, prefix));
    const kept = seen.filter((k) => inRange.has(k));
    if (seen.length < limits.cap) {
      const sorted = q.descending ? kept.reverse() : kept;
      return { keys: sorted.slice(q.skip, q.skip + q.limit), count: sorted.length, exact: true };
    }
    const scanned = range(q, prefix).slice(0, limits.budget);
    const found = scanned.filter((k) => matches(k, q.search!));
    const keys = found.slice(q.skip, q.skip + q.limit);
    if (keys.length === q.limit) return { keys, count: Math.max(kept.length, q.skip + keys.length), exact: false };
    if (range(q, prefix).length > limits.budget) return { tooBroad: true };
    return { keys, count: found.length, exact: true };
  }

  return {
    limits,
    async list(q) {
      const prefix = q.subjectType === undefined ? '' : `${q.subjectType}:`;
      if (q.search) return search(q, prefix);
      const counted = count(q, prefix);
      if (counted.exact && q.skip >= counted.count) return { keys: [], ...counted };
      return { keys: range(q, prefix).slice(q.skip, q.skip + q.limit), ...counted };
    },
    async catchUp(limit) {
      return catchUp(limit);
    },
    async idle() {
      return [...g.tuples.values()].every((e) => e.searchable);
    },
    async prepare(starting) {
      if (g.listFieldsFilled) return 0;
      starting?.();
      g.listFieldsFilled = true;
      return 0;
    },
  };
}
