// Index maintenance: recompute, from the stored tuples, every index record a change can touch.
import { createHash } from 'node:crypto';
import { typeOf, type Tuple } from '../../engine/ids.js';
import { actorKeys, flatSet, isArrowRelation, objectRow, type ArrowReader } from '../../engine/index-math.js';
import type { Model } from '../../engine/model.js';
import type { Logger } from '../../log.js';
import type { AuthzStore, FlatRecord, GraphStore, IndexStore, ObjectRows } from '../../stores/ports.js';
import type { DecisionCache } from './decision-cache.js';
import type { ModelSource } from './model-source.js';

export const REBUILD_BATCH = 1000;

/**
 * Memoised tuple reads for one unit of index work. Tuples are read from the Neo4j projection, which every
 * write updates before indexing (indexed lookups; FerretDB v1 scans collections for non-_id filters);
 * grants, which have no projection, come from MongoDB.
 */
class Snapshot implements ArrowReader {
  private readonly onResource = new Map<string, Promise<Tuple[]>>();
  private readonly ofSubject = new Map<string, Promise<Tuple[]>>();
  private readonly grantsOf = new Map<string, Tuple[]>();
  constructor(private readonly store: AuthzStore, private readonly graph: GraphStore, readonly model: Model) {}

  /** Loads the tuples and grants of many objects in three queries (rebuild batches). */
  async prefetch(objects: string[]) {
    const [on, of, grants] = await Promise.all([
      this.graph.tuplesOnResources(objects), this.graph.tuplesOfSubjects(objects), this.store.grantsTouching(objects)]);
    const group = (list: Tuple[], key: (t: Tuple) => string) => {
      const m = new Map<string, Tuple[]>(objects.map((o) => [o, []]));
      for (const t of list) m.get(key(t))?.push(t);
      return m;
    };
    for (const [o, ts] of group(on, (t) => t.resource)) this.onResource.set(o, Promise.resolve(ts.filter(this.model.isValid)));
    for (const [o, ts] of group(of, (t) => t.subject)) this.ofSubject.set(o, Promise.resolve(ts.filter(this.model.isValid)));
    for (const o of objects) this.grantsOf.set(o, []);
    for (const g of grants) {
      this.grantsOf.get(g.subject)?.push(g);
      if (g.resource !== g.subject) this.grantsOf.get(g.resource)?.push(g);
    }
  }
  /** Grants with `o` as subject or resource, when prefetched. */
  prefetchedGrants(o: string) { return this.grantsOf.get(o); }
  tuplesOn(o: string) {
    let p = this.onResource.get(o);
    if (!p) { p = this.graph.tuplesOnResources([o]).then((ts) => ts.filter(this.model.isValid)); this.onResource.set(o, p); }
    return p;
  }
  tuplesOf(s: string) {
    let p = this.ofSubject.get(s);
    if (!p) { p = this.graph.tuplesOfSubjects([s]).then((ts) => ts.filter(this.model.isValid)); this.ofSubject.set(s, p); }
    return p;
  }
  async subjects(object: string, relation: string) {
    return (await this.tuplesOn(object)).filter((t) => t.relation === relation).map((t) => t.subject);
  }
  /** Objects that inherit from `o`: resources of its valid tuples whose relation feeds an arrow. */
  async inheritors(o: string) {
    return (await this.tuplesOf(o)).filter((t) => isArrowRelation(this.model, typeOf(t.resource), t.relation)).map((t) => t.resource);
  }
}

const hashOf = (v: unknown) => createHash('sha1').update(JSON.stringify(v)).digest('base64url');

export class Indexer {
  // Index work is serialised so that a recomputation from an older read never lands after a newer one.
  private tail: Promise<unknown> = Promise.resolve();
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  constructor(private readonly store: AuthzStore, private readonly index: IndexStore, private readonly graph: GraphStore,
    private readonly models: ModelSource,
    private readonly cache: DecisionCache, private readonly log: Logger) {}

  private async gens(): Promise<number[]> {
    const m = await this.index.meta();
    return m.building ? [m.gen, m.building] : [m.gen];
  }

  private async snapshot() { return new Snapshot(this.store, this.graph, await this.models.get()); }

  private async rowsOf(snap: Snapshot, objects: Iterable<string>): Promise<{ put: ObjectRows[]; gone: string[] }> {
    const put: ObjectRows[] = [];
    const gone: string[] = [];
    for (const obj of new Set(objects)) {
      const type = typeOf(obj);
      if (!snap.model.get(type) || !(await this.named(snap, obj))) { gone.push(obj); continue; }
      const rows = [];
      for (const action of snap.model.actionsOf(type)) rows.push({ action, ...(await objectRow(snap.model, snap, obj, action)) });
      put.push({ obj, type, rows });
    }
    return { put, gone };
  }

  /** Objects named by a valid tuple or grant get rows; others have none (and can still be public). */
  private async named(snap: Snapshot, obj: string): Promise<boolean> {
    if ((await snap.tuplesOn(obj)).length || (await snap.tuplesOf(obj)).length) return true;
    const grants = snap.prefetchedGrants(obj) ?? [...await this.store.grantsOnResource(obj), ...await this.store.grantsOfSubject(obj)];
    return grants.some(snap.model.isValidGrant);
  }

  private async actorsOf(snap: Snapshot, subjects: Iterable<string>) {
    const out = [];
    for (const subject of new Set(subjects)) {
      const grants = snap.prefetchedGrants(subject)?.filter((g) => g.subject === subject) ?? await this.store.grantsOfSubject(subject);
      out.push({ subject, keys: actorKeys(snap.model, await snap.tuplesOf(subject), grants) });
    }
    return out;
  }

  private async flatsOf(snap: Snapshot, objects: Iterable<string>): Promise<FlatRecord[]> {
    const out: FlatRecord[] = [];
    for (const obj of new Set(objects)) {
      const type = snap.model.get(typeOf(obj));
      for (const perm of type?.permissions.keys() ?? []) {
        const f = await flatSet(snap.model, snap, obj, perm);
        out.push({ id: `${obj}#${perm}`, public: f.public, keys: f.keys, hash: hashOf(f) });
      }
    }
    return out;
  }

  /** `start` and every object that inherits from it, transitively, with those that others inherit from. */
  private async upward(snap: Snapshot, starts: Iterable<string>): Promise<{ all: Set<string>; referenced: Set<string> }> {
    const all = new Set(starts);
    const referenced = new Set<string>();
    const todo = [...all];
    while (todo.length) {
      const w = todo.pop()!;
      const parents = await snap.inheritors(w);
      if (parents.length) referenced.add(w);
      for (const p of parents) if (!all.has(p)) { all.add(p); todo.push(p); }
    }
    return { all, referenced };
  }

  private async apply(gens: number[], snap: Snapshot,
    work: { rows?: Iterable<string>; actors?: Iterable<string>; flatsFrom?: Iterable<string>; structural?: boolean }) {
    const rows = await this.rowsOf(snap, work.rows ?? []);
    const actors = await this.actorsOf(snap, work.actors ?? []);
    const up = await this.upward(snap, work.flatsFrom ?? []);
    const flats = await this.flatsOf(snap, up.referenced);
    let changedFlats = 0;
    for (const gen of gens) {
      await this.index.putFlats(gen, flats).then((n) => { changedFlats += n; });
      await this.index.putRows(gen, rows.put);
      if (rows.gone.length) await this.index.deleteRows(gen, rows.gone);
      await this.index.putActors(gen, actors);
    }
    await this.cache.bump([...rows.put.map((r) => r.obj), ...rows.gone, ...actors.map((a) => a.subject)],
      changedFlats > 0 || work.structural === true);
  }

  /** After a tuple was written or deleted (the store already reflects it). */
  tupleChanged(t: Tuple): Promise<void> {
    return this.exclusive(async () => {
    const snap = await this.snapshot();
    const arrow = isArrowRelation(snap.model, typeOf(t.resource), t.relation);
    await this.apply(await this.gens(), snap, {
      rows: [t.subject, t.resource], actors: [t.subject], flatsFrom: arrow ? [t.resource, t.subject] : [],
    });
    });
  }

  grantChanged(g: Tuple): Promise<void> {
    return this.exclusive(async () => {
    const snap = await this.snapshot();
    await this.apply(await this.gens(), snap, { rows: [g.subject, g.resource], actors: [g.subject] });
    });
  }

  /** After a definition of `type` changed: its objects, their neighbours and everything inheriting from them. */
  typeChanged(type: string): Promise<void> {
    return this.exclusive(async () => {
    await this.models.reload();
    const snap = await this.snapshot();
    const onType = await this.store.tuplesOfType(type, 'resource');
    const asSubject = await this.store.tuplesOfType(type, 'subject');
    const grants = await this.store.grantsOfType(type);
    const objects = new Set<string>();
    for (const t of [...onType, ...asSubject, ...grants]) { objects.add(t.subject); objects.add(t.resource); }
    // A definition change can alter decisions on objects with no records at all (public entries): invalidate all.
    await this.apply(await this.gens(), snap, { rows: objects, actors: objects, flatsFrom: objects, structural: true });
    });
  }

  /** Recomputes every record into `gen` from all tuples, 1000 per resource type at a time. */
  async rebuild(gen: number, progress: (done: number, total: number) => void): Promise<void> {
    const total = await this.store.countTuples();
    let done = 0;
    // Pass 1: the projection, which pass 2 reads (it converges by MERGE, and mends a Neo4j that lost data).
    for await (const batch of this.store.scanTuples(REBUILD_BATCH)) {
      await this.graph.putTuples(batch);
      done += batch.length;
      progress(done, total * 2);
    }
    const seen = new Set<string>();
    for await (const batch of this.store.scanTuples(REBUILD_BATCH)) {
      const fresh = [...new Set(batch.flatMap((t) => [t.subject, t.resource]))].filter((o) => !seen.has(o));
      fresh.forEach((o) => seen.add(o));
      await this.exclusive(async () => {
        const snap = await this.snapshot();
        await snap.prefetch(fresh);
        const rows = await this.rowsOf(snap, fresh);
        const actors = await this.actorsOf(snap, fresh);
        const referenced = [];
        for (const o of fresh) if ((await snap.inheritors(o)).length) referenced.push(o);
        await this.index.putFlats(gen, await this.flatsOf(snap, referenced));
        await this.index.putRows(gen, rows.put);
        await this.index.putActors(gen, actors.filter((a) => a.keys.length));
      });
      done += batch.length;
      progress(done, total * 2);
    }
    for await (const batch of this.store.scanGrants(REBUILD_BATCH)) {
      const fresh = [...new Set(batch.flatMap((g) => [g.subject, g.resource]))].filter((o) => !seen.has(o));
      fresh.forEach((o) => seen.add(o));
      await this.exclusive(async () => {
        const snap = await this.snapshot();
        await snap.prefetch(fresh);
        await this.index.putRows(gen, (await this.rowsOf(snap, fresh)).put);
        await this.index.putActors(gen, (await this.actorsOf(snap, fresh)).filter((a) => a.keys.length));
      });
    }
    await this.cache.bump([], true);
    this.log.debug({ gen, objects: seen.size }, 'index generation built');
  }

  /** Recomputes what the given changes touched, into `gen` only (used to catch up a new generation). */
  replay(gen: number, changes: Array<{ kind: string; key: string }>): Promise<void> {
    return this.exclusive(async () => {
    const snap = await this.snapshot();
    const objects = new Set<string>();
    for (const c of changes) {
      if (c.kind === 'definition') {
        for (const t of [...await this.store.tuplesOfType(c.key, 'resource'), ...await this.store.tuplesOfType(c.key, 'subject')]) {
          objects.add(t.subject); objects.add(t.resource);
        }
        continue;
      }
      const hash = c.key.indexOf('#');
      const at = c.key.indexOf('@', hash);
      objects.add(c.key.slice(0, hash));
      objects.add(c.key.slice(at + 1));
    }
    await this.apply([gen], snap, { rows: objects, actors: objects, flatsFrom: objects });
    });
  }
}
