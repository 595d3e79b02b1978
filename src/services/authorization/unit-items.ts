// What a unit of index work is made of: the tuples of committed entries, and the partitions each of them writes.
import { parseTupleText, typeOf, type Tuple } from '../../engine/ids.js';
import type { Model } from '../../engine/model.js';
import type { ChangeEntry } from '../../stores/ports/change-log.js';
import type { IndexLeases } from './index-leases.js';

export type Item = { t: Tuple; grant: boolean };

/** The partitions a unit writes for one tuple or grant: its resource's, and its subject's when the subject has rows. */
export function needsOf(model: Model, x: Item, leases: IndexLeases): number[] {
  const out = [leases.partitionOf(x.t.resource)];
  if (model.actionsOf(typeOf(x.t.subject)).length > 0) out.push(leases.partitionOf(x.t.subject));
  return out;
}

export const tuplesOf = (e: ChangeEntry): Tuple[] => (e.tuples ?? []).map((t) => parseTupleText(t)).filter((t): t is Tuple => t !== null);
