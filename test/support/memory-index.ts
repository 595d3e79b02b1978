// A whole-snapshot index built with the engine's index maths, to compare with the evaluator.
import { typeOf, type Tuple } from '../../src/engine/ids.js';
import { actorKeys, decide, flatSet, objectRow, tupleView } from '../../src/engine/index-math.js';
import type { Model } from '../../src/engine/model.js';

/** can() answered from index records alone. */
export function indexCan(model: Model, tuples: Tuple[], grants: Tuple[], s: string, a: string, o: string) {
  if (s === o) return true;
  const view = tupleView(model, tuples, grants);
  const ai = actorKeys(model, tuples.filter((t) => t.subject === s), grants.filter((g) => g.subject === s));
  if (!model.get(typeOf(o))) return false;
  const row = objectRow(model, view, o, a);
  const flats = row.refs.map((ref) => {
    const hash = ref.lastIndexOf('#');
    return flatSet(model, view, ref.slice(0, hash), ref.slice(hash + 1));
  });
  return decide(ai, row, flats);
}
