// A whole-snapshot index built with the engine's index maths, to compare with the evaluator.
import { typeOf, type Tuple } from '../../src/engine/ids.js';
import { actorKeys, decide, flatSet, objectRow, tupleView, type FlatSet, type ObjectRow } from '../../src/engine/index-math.js';
import type { Model } from '../../src/engine/model.js';

/** A record computed on first use and kept, as the stored index keeps it: the maths run once per record, not per check. */
function kept<T>(make: (...key: string[]) => T): (...key: string[]) => T {
  const records = new Map<string, T>();
  return (...key) => {
    const id = JSON.stringify(key);
    if (!records.has(id)) records.set(id, make(...key));
    return records.get(id)!;
  };
}

/** The index of one snapshot: can() answered from index records alone (AI of the subject, OI of the object, flat sets). */
export function memoryIndex(model: Model, tuples: Tuple[], grants: Tuple[]) {
  const view = tupleView(model, tuples, grants);
  const actor = kept((s) => actorKeys(model, tuples.filter((t) => t.subject === s), grants.filter((g) => g.subject === s)));
  const row = kept((o, a): ObjectRow => objectRow(model, view, o, a));
  const flat = kept((x, b): FlatSet => flatSet(model, view, x, b));
  return {
    can(s: string, a: string, o: string): boolean {
      if (s === o) return true;
      if (!model.get(typeOf(o))) return false;
      const r = row(o, a);
      const flats = r.refs.map((ref) => {
        const hash = ref.lastIndexOf('#');
        return flat(ref.slice(0, hash), ref.slice(hash + 1));
      });
      return decide(actor(s), r, flats);
    },
  };
}
