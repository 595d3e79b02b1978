// One generation of the in-memory index: the nodes and edges of cypher/index.cypher (rows, flats, keys, deps, actors) as Maps.

export interface MemRow { obj: string; type: string; action: string; public: boolean; hash: string; keys: string[]; refs: string[] }
/** A flat a row referred to before it was written has no owner yet, as the node MERGEd by put-rows. */
export interface MemFlat { obj: string | null; public: boolean; hash: string; keys: string[]; deps: string[] }

const add = (m: Map<string, Set<string>>, k: string, v: string) => {
  const s = m.get(k);
  if (s) s.add(v); else m.set(k, new Set([v]));
};
const remove = (m: Map<string, Set<string>>, k: string, v: string) => {
  const s = m.get(k);
  if (!s) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
};

/**
 * Every node kind the Cypher creates is kept, orphans included (keys and deps outlive the rows and flats that made
 * them, as their nodes do), so dropGeneration counts what Neo4j deletes. The reverse maps stand for edges read backwards.
 */
export class Generation {
  readonly rows = new Map<string, MemRow>();
  readonly flats = new Map<string, MemFlat>();
  readonly keys = new Set<string>();
  readonly deps = new Set<string>();
  /** Actor (subject) -> keys it HOLDS. */
  readonly actors = new Map<string, Set<string>>();
  readonly holders = new Map<string, Set<string>>();
  readonly rowsOfObject = new Map<string, Set<string>>();
  readonly rowsOfKind = new Map<string, Set<string>>();
  readonly rowsGiving = new Map<string, Set<string>>();
  readonly flatsGiving = new Map<string, Set<string>>();
  readonly referring = new Map<string, Set<string>>();
  readonly dependents = new Map<string, Set<string>>();
  readonly flatsOfObject = new Map<string, Set<string>>();

  get nodes(): number {
    return this.rows.size + this.flats.size + this.keys.size + this.deps.size + this.actors.size;
  }

  /** The flat node `id`, created as put-rows' MERGE creates it when missing. */
  flatNode(id: string): MemFlat {
    let f = this.flats.get(id);
    if (!f) { f = { obj: null, public: false, hash: '', keys: [], deps: [] }; this.flats.set(id, f); }
    return f;
  }

  createRow(row: MemRow): void {
    const id = `${row.obj}#${row.action}`;
    this.rows.set(id, row);
    add(this.rowsOfObject, row.obj, id);
    add(this.rowsOfKind, `${row.type} ${row.action}`, id);
    for (const k of row.keys) { this.keys.add(k); add(this.rowsGiving, k, id); }
    for (const f of row.refs) { this.flatNode(f); add(this.referring, f, id); }
  }

  deleteRow(id: string): void {
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.delete(id);
    remove(this.rowsOfObject, row.obj, id);
    remove(this.rowsOfKind, `${row.type} ${row.action}`, id);
    for (const k of row.keys) remove(this.rowsGiving, k, id);
    for (const f of row.refs) remove(this.referring, f, id);
  }

  /** Replaces a flat's GIVES and DEPENDS edges and its properties (put-flats, for a changed hash). */
  rewriteFlat(id: string, next: { obj: string; public: boolean; hash: string; keys: string[]; deps: string[] }): void {
    const f = this.flatNode(id);
    for (const k of f.keys) remove(this.flatsGiving, k, id);
    for (const d of f.deps) remove(this.dependents, d, id);
    if (f.obj !== null) remove(this.flatsOfObject, f.obj, id);
    Object.assign(f, { obj: next.obj, public: next.public, hash: next.hash, keys: [...next.keys], deps: [...next.deps] });
    add(this.flatsOfObject, next.obj, id);
    for (const k of next.keys) { this.keys.add(k); add(this.flatsGiving, k, id); }
    for (const d of next.deps) { this.deps.add(d); add(this.dependents, d, id); }
  }

  hold(subject: string, key: string, present: boolean): void {
    if (present) {
      let held = this.actors.get(subject);
      if (!held) { held = new Set(); this.actors.set(subject, held); }
      this.keys.add(key);
      held.add(key);
      add(this.holders, key, subject);
    } else if (this.actors.get(subject)?.delete(key)) {
      remove(this.holders, key, subject);
    }
  }

  /** The keys a row gives, its own and those of the flats it refers to, and whether it or one of those flats is public. */
  reach(row: MemRow): { keys: Set<string>; public: boolean } {
    const keys = new Set(row.keys);
    let isPublic = row.public;
    for (const id of row.refs) {
      const f = this.flats.get(id);
      if (!f) continue;
      isPublic ||= f.public;
      for (const k of f.keys) keys.add(k);
    }
    return { keys, public: isPublic };
  }
}
