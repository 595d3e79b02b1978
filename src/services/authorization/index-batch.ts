// One unit of index work: bring the projection and the index in line with MongoDB for a batch of tuples and grants.
import { createHash } from 'node:crypto';
import { typeOf, tupleText, type Tuple } from '../../engine/ids.js';
import { changesFlats, flatSet, isArrowRelation, isFlatSource, isInherited, relationKey } from '../../engine/index-math.js';
import type { Model } from '../../engine/model.js';
import type { GrantReads } from '../../stores/ports/grants.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import type { DeletionHints } from '../../stores/ports/deletion-hints.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import { Loaded } from './projection-loader.js';
import type { FlatRecord, IndexStore } from '../../stores/ports/index-store.js';

const hashOf = (v: unknown) => createHash('sha1').update(JSON.stringify(v)).digest('base64url');

export interface BatchInput {
  tuples: Tuple[];
  grants: Tuple[];
  /** Index generations to write (the live one, and the one a hard rebuild is building). */
  gens: number[];
  model: Model;
  /**
   * Added by their writer (or read from MongoDB by a rebuild): taken as stored, except those a recent
   * delete marked, which are read back. Otherwise every one is read from MongoDB. The projection is then
   * synced to what MongoDB has. `skipProjection` trusts the projection as it is (definition changes).
   */
  assumeStored?: boolean;
  skipProjection?: boolean;
  /** The model changed: every resource in the batch may have other rows and flats. */
  modelChanged?: boolean;
  /** Tag for the edges a rebuild has seen. */
  mark?: string;
  /** Whether the unit holds the structure lease (flats may be written); without it, work on flats is handed on. */
  structure?: boolean;
  /** Whether the unit holds the partition of this object (rows may be written); absent: all of them. */
  owns?: (object: string) => boolean;
}

/**
 * Thrown before anything is written when a unit without the structure lease would change flattened sets, or would
 * write rows outside its partitions (the model changed since its tuples were classified): the applier runs those
 * tuples again in a unit holding the structure lease and their partitions.
 */
export class NeedsStructure extends Error {
  constructor(why: string) {
    super(`this unit needs the structure lease: ${why}`);
  }
}

/** Objects invalidated one by one after a flat changed; beyond this, the whole decision cache is. */
const NARROW_MAX = 2000;

export interface BatchResult {
  /** Subjects and objects whose decisions may have changed. */
  touched: string[];
  /** Whether every cached decision may be wrong (a definition changed, or a flat that many rows refer to). */
  structure: boolean;
}

/**
 * The steps, each one batched query or a few: read what MongoDB has; MERGE or DELETE the projection
 * edges (they are the subjects' keys, read by checks where they are); recompute the flattened sets that depend on a
 * resource whose arrow tuples changed, and create them for subjects that others now inherit from. Everything is recomputed from the stored
 * state, never patched, so the result is the same whatever the order or the number of replays.
 */
export class IndexBatch {
  constructor(private readonly store: TupleReads & GrantReads, private readonly graph: GraphStore, private readonly index: IndexStore, private readonly hints: DeletionHints) {}

  async apply(input: BatchInput): Promise<BatchResult> {
    const { model, gens } = input;
    const tuples = dedupe(input.tuples);
    const grants = dedupe(input.grants);
    const resources = [...new Set([...tuples, ...grants].map((t) => t.resource))];
    // Subjects are objects too: any object named by a valid tuple or grant gets rows (and shows in lists).
    const objects = [...new Set([...resources, ...[...tuples, ...grants].map((t) => t.subject)])]
      .filter((o) => model.actionsOf(typeOf(o)).length > 0);
    if (input.structure === false) {
      const arrow = tuples.find((t) => changesFlats(model, t));
      if (arrow) throw new NeedsStructure(`${tupleText(arrow)} can change flattened sets`);
    }
    const foreign = input.owns ? [...resources, ...objects].find((o) => !input.owns!(o)) : undefined;
    if (foreign !== undefined) throw new NeedsStructure(`rows of ${foreign} lie outside the unit's partitions`);
    const loaded = new Loaded(this.graph, model);
    if (input.skipProjection) await loaded.load(objects);
    // Without a projection sync (definition changes), what counts is the projection as read now, inside the
    // lease: a tuple deleted since the caller listed it must not get its key back.
    const present = input.skipProjection ? loaded.edges : {
      tuples: await this.stored(tuples.map(tupleText), false, input),
      grants: await this.stored(grants.map(tupleText), true, input),
    };
    const has = (t: Tuple, grant: boolean) => (grant ? present.grants : present.tuples).has(tupleText(t));

    if (!input.skipProjection) {
      await this.graph.sync([
        ...tuples.map((tuple) => ({ tuple, grant: false, present: has(tuple, false) })),
        ...grants.map((tuple) => ({ tuple, grant: true, present: has(tuple, true) })),
      ], input.mark);
    }

    // Flats: those computed from a resource whose arrow tuples changed, and those of new inheritance sources.
    // After a model change any flat whose closure visited one of the batch's objects may differ.
    const arrowResources = input.modelChanged ? [...new Set([...tuples, ...grants].flatMap((t) => [t.subject, t.resource]))]
      : [...new Set(tuples.filter((t) => isArrowRelation(model, typeOf(t.resource), t.relation) && isInherited(model, typeOf(t.resource)))
        .map((t) => t.resource))];
    const sources = [...new Set(tuples.filter((t) => has(t, false) && isFlatSource(model, t)).map((t) => t.subject))];
    const toFlatten = new Set<string>();
    for (const gen of gens) {
      if (arrowResources.length) { for (const o of await this.index.flatsDependingOn(gen, arrowResources)) toFlatten.add(o); }
      if (sources.length) {
        const done = await this.index.flattened(gen, sources);
        for (const s of sources) if (!done.has(s)) toFlatten.add(s);
      }
    }
    const flats = await this.flats(model, loaded, [...toFlatten]);

    let structure = input.modelChanged === true;
    const changedFlats = new Map<number, string[]>();
    for (const gen of gens) if (flats.length) changedFlats.set(gen, await this.index.putFlats(gen, flats));
    const touched = new Set([...[...tuples, ...grants].map((t) => t.subject), ...resources]);
    // A changed flat changes decisions about the objects with an arrow tuple from its owner: those are invalidated one by
    // one, unless there are so many that dropping every cached decision costs less.
    for (const [gen, ids] of changedFlats) {
      if (structure || ids.length === 0) continue;
      const referring = await this.index.objectsUnder(gen, ids, NARROW_MAX + 1);
      if (referring.length > NARROW_MAX) structure = true;
      else for (const o of referring) touched.add(o);
    }
    return { touched: [...touched], structure };
  }

  private async stored(texts: string[], grant: boolean, input: BatchInput): Promise<Set<string>> {
    const read = (list: string[]) => (grant ? this.store.presentGrants(list) : this.store.presentTuples(list));
    if (!input.assumeStored) return read(texts);
    const hinted = await this.hints.hinted(texts);
    if (hinted.size === 0) return new Set(texts);
    const back = await read([...hinted]);
    return new Set(texts.filter((t) => !hinted.has(t) || back.has(t)));
  }

  /** Every flat of these objects, from the closure of tuples below them (loaded level by level). */
  private async flats(model: Model, loaded: Loaded, objects: string[]): Promise<FlatRecord[]> {
    await loaded.closure(objects);
    const out: FlatRecord[] = [];
    for (const obj of objects) {
      for (const perm of model.get(typeOf(obj))?.permissions.keys() ?? []) {
        const f = flatSet(model, loaded.view, obj, perm);
        out.push({ id: relationKey(obj, perm), obj, perm, public: f.public, keys: f.keys, deps: f.deps, hash: hashOf(f) });
      }
    }
    return out;
  }
}

const dedupe = (list: Tuple[]) => [...new Map(list.map((t) => [tupleText(t), t])).values()];
