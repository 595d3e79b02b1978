// Flats computed in Node for the flat-nodes and leopard variants: the engine's flatSet over every tuple loaded so far.
import { createHash } from 'node:crypto';
import { typeOf, type Tuple } from '../../src/engine/ids.js';
import { flatSet, isArrowRelation, isFlatSource, tupleView } from '../../src/engine/index-math.js';
import type { Model } from '../../src/engine/model.js';

/** A flat key `y#r` (or a grant key `y#p!`) as a GIVES edge: to y, with the relation and the slot it must be held in. */
export interface FlatKey {
  y: string;
  rel: string;
  slot: string;
}
export interface Flat {
  obj: string;
  perm: string;
  public: boolean;
  keys: FlatKey[];
  deps: string[];
  hash: string;
  /** Never written before; `changed`: differs from what was written. */
  fresh: boolean;
  changed: boolean;
}

export function flatKey(key: string): FlatKey {
  const hash = key.lastIndexOf('#');
  const y = key.slice(0, hash);
  const rel = key.slice(hash + 1);
  return { y, rel, slot: `${typeOf(y)}#${rel.replace(/!$/, '')}` };
}

/**
 * What one unit changes in the flats. The caller asks the store which objects' flats depend on `arrowResources` and
 * which of `sources` have flats already (as index-batch does); `flatsOf` then gives those whose content changed.
 */
export class FlatMaker {
  private readonly view;
  /** Hash of each flat written, by `obj#perm`: a flat rewritten with the same content is skipped. */
  private readonly written = new Map<string, string>();

  constructor(private readonly model: Model) {
    this.view = tupleView(model, []);
  }

  /** Adds the unit's tuples; answers the resources whose arrow tuples changed and the new inheritance sources. */
  add(tuples: Tuple[]): { arrowResources: string[]; sources: string[] } {
    for (const t of tuples) this.view.add(t);
    const arrow = tuples.filter((t) => isArrowRelation(this.model, typeOf(t.resource), t.relation)).map((t) => t.resource);
    const sources = tuples.filter((t) => isFlatSource(this.model, t)).map((t) => t.subject);
    return { arrowResources: [...new Set(arrow)], sources: [...new Set(sources)] };
  }

  /**
   * Every flat of these objects whose content differs from what was written (all of them for a new source); `whole`:
   * every flat of an object one of whose flats differs (a shape that rewrites an object's flats together).
   */
  flatsOf(objects: string[], whole = false): Flat[] {
    const out: Flat[] = [];
    for (const obj of objects) {
      const mine: Flat[] = [];
      for (const perm of this.model.get(typeOf(obj))?.permissions.keys() ?? []) {
        const f = flatSet(this.model, this.view, obj, perm);
        const hash = createHash('sha1').update(JSON.stringify(f)).digest('base64url');
        const id = `${obj}#${perm}`;
        const before = this.written.get(id);
        this.written.set(id, hash);
        mine.push({ obj, perm, public: f.public, keys: f.keys.map(flatKey), deps: f.deps, hash, fresh: before === undefined, changed: before !== hash });
      }
      out.push(...(whole && mine.some((f) => f.changed) ? mine : mine.filter((f) => f.changed)));
    }
    return out;
  }
}
