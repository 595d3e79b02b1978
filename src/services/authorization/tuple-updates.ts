// The updates of one bulk write (`/relations/write`): their form checked, the same tuple twice refused, split by operation.
import { isWellFormed, tupleText, type Tuple } from '../../engine/ids.js';
import { AppError } from '../../errors.js';

/** Updates one call may carry (SpiceDB's WriteRelationships takes 1,000, OpenFGA's Write 100). */
export const WRITE_MAX = 1000;

export interface TupleUpdate extends Tuple {
  operation: 'create' | 'delete';
}
/** A tuple with the position of its update in the call, which errors name. */
export interface Placed {
  tuple: Tuple;
  index: number;
}

/**
 * Every update well-formed and no tuple named twice (a create and a delete of one tuple in one call has no order to
 * settle it), else VALIDATION_FAILED naming the updates by index; then the creates and the deletes, each in call order.
 */
export function splitUpdates(updates: TupleUpdate[]): { creates: Placed[]; deletes: Placed[] } {
  const seen = new Map<string, number>();
  const out = { creates: [] as Placed[], deletes: [] as Placed[] };
  for (const [index, u] of updates.entries()) {
    const tuple = { subject: u.subject, relation: u.relation, resource: u.resource };
    if (!isWellFormed(tuple)) {
      throw new AppError('VALIDATION_FAILED', `updates.${index}: subject and resource must be Type:id and relation a name`, [{ index, tuple }]);
    }
    const text = tupleText(tuple);
    const first = seen.get(text);
    if (first !== undefined) {
      throw new AppError('VALIDATION_FAILED', `updates.${first} and updates.${index} name the same tuple ${text}; send each tuple once a call`, [{ index: first, tuple: text }, {
        index,
        tuple: text,
      }]);
    }
    seen.set(text, index);
    (u.operation === 'create' ? out.creates : out.deletes).push({ tuple, index });
  }
  return out;
}
