// The tuple graph the graph-store and tuple-listing twins share: objects (never deleted, as their nodes) and edges by key.
import { parseObject, tupleText, type Tuple } from '../../engine/ids.js';

/** `searchable`: the tuple listing's catch-up has passed it (Neo4j: keyLower set, searchPending gone); kept on a re-put. */
export interface MemEdge {
  tuple: Tuple;
  key: string;
  mark: string;
  searchable: boolean;
}

/** One graph stands for one Neo4j projection: the graph store writes it, the tuple listing reads its TUPLE edges. */
export class MemoryGraph {
  /** Object key -> its type (the node's label). */
  readonly objects = new Map<string, string>();
  readonly tuples = new Map<string, MemEdge>();
  readonly grants = new Map<string, MemEdge>();
  /** Object -> keys of the edges into it, and out of it (both kinds). */
  readonly into = new Map<string, Set<string>>();
  readonly outOf = new Map<string, Set<string>>();
  /** Whether the list fields were filled once (tuple listing's marker). */
  listFieldsFilled = false;

  edges(grant: boolean): Map<string, MemEdge> {
    return grant ? this.grants : this.tuples;
  }

  put(tuple: Tuple, grant: boolean, mark: string): void {
    for (const o of [tuple.subject, tuple.resource]) if (!this.objects.has(o)) this.objects.set(o, parseObject(o)!.type);
    const key = tupleText(tuple);
    const id = `${grant ? 'G' : 'T'} ${key}`;
    // A plain write (no mark) leaves the mark a rebuild gave the edge, as put-edges does.
    const was = this.edges(grant).get(key);
    this.edges(grant).set(key, { tuple, key, mark: mark || was?.mark || '', searchable: was?.searchable ?? false });
    link(this.into, tuple.resource, id);
    link(this.outOf, tuple.subject, id);
  }

  remove(key: string, grant: boolean): void {
    const e = this.edges(grant).get(key);
    if (!e) return;
    this.edges(grant).delete(key);
    const id = `${grant ? 'G' : 'T'} ${key}`;
    this.into.get(e.tuple.resource)?.delete(id);
    this.outOf.get(e.tuple.subject)?.delete(id);
  }

  /** The edges of an index set (ids `T key` or `G key`), with their kind. */
  resolve(ids: Iterable<string>): Array<MemEdge & { grant: boolean }> {
    const out: Array<MemEdge & { grant: boolean }> = [];
    for (const id of ids) {
      const grant = id.startsWith('G');
      const e = this.edges(grant).get(id.slice(2));
      if (e) out.push({ ...e, grant });
    }
    return out;
  }
}

function link(m: Map<string, Set<string>>, k: string, id: string) {
  const s = m.get(k);
  if (s) s.add(id); else m.set(k, new Set([id]));
}
