// A whole-snapshot index built with the engine's index maths, to compare with the evaluator.
import { typeOf, type Tuple } from '../../src/engine/ids.js';
import { actorKeys, decide, flatSet, objectRow, type ArrowReader } from '../../src/engine/index-math.js';
import type { Model } from '../../src/engine/model.js';

export function memoryReader(model: Model, tuples: Tuple[]): ArrowReader {
  return {
    subjects: async (object, relation) => tuples
      .filter((t) => t.resource === object && t.relation === relation && model.isValid(t)).map((t) => t.subject),
  };
}

/** can() answered from index records alone. */
export async function indexCan(model: Model, tuples: Tuple[], grants: Tuple[], s: string, a: string, o: string) {
  if (s === o) return true;
  const reader = memoryReader(model, tuples);
  const ai = actorKeys(model, tuples.filter((t) => t.subject === s), grants.filter((g) => g.subject === s));
  if (!model.get(typeOf(o))) return false;
  const row = await objectRow(model, reader, o, a);
  const flats = await Promise.all(row.refs.map((ref) => {
    const hash = ref.lastIndexOf('#');
    return flatSet(model, reader, ref.slice(0, hash), ref.slice(hash + 1));
  }));
  return decide(ai, row, flats);
}
