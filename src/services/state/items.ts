// Tuples and grants as a state document carries them: one item type, and its conversions to and from document lines.
import { tupleText, type Tuple } from '../../engine/ids.js';
import type { StateLine } from './document.js';

/** A tuple, or a direct grant (`relation` holds the permission). */
export interface Item {
  grant: boolean;
  t: Tuple;
}
/** A document line that carries a tuple or a grant (not the end line). */
export type ItemLine = Exclude<StateLine, { end: unknown }>;

/** Tuples and grants are read, checked and written this many at a time. */
export const BATCH = 1000;
/** Long imports log their progress every this many lines. */
export const PROGRESS_EVERY = 100_000;

export const asItem = (l: ItemLine): Item => ('permission' in l
  ? { grant: true, t: { subject: l.subject, relation: l.permission, resource: l.resource } }
  : { grant: false, t: { subject: l.subject, relation: l.relation, resource: l.resource } });
export const lineOf = (i: Item) => (i.grant
  ? { subject: i.t.subject, permission: i.t.relation, resource: i.t.resource }
  : { subject: i.t.subject, relation: i.t.relation, resource: i.t.resource });
/** A key that tells a tuple from a grant of the same text. */
export const textOf = (i: Item) => `${i.grant ? 'g' : 't'}${tupleText(i.t)}`;

/** The items in batches of BATCH. */
export async function* batches(items: Item[]): AsyncGenerator<Item[]> {
  for (let i = 0; i < items.length; i += BATCH) yield items.slice(i, i + BATCH);
}
