// Paging a list kept in the index when one more id (the subject itself, by self-access) belongs in it.
import type { ListCount } from '../../stores/ports/index-store.js';

/**
 * One page of the index's sorted list with `extra` merged in at its place: `fetch(skip, limit)` reads the index's
 * own list, `counted` says how long it is, how many ids sort before `extra` and whether it already holds `extra`.
 */
export async function pageWithExtra(extra: string | null, counted: ListCount, skip: number, limit: number,
  fetch: (skip: number, limit: number) => Promise<string[]>): Promise<{ ids: string[]; count: number }> {
  if (extra === null || counted.has) return { ids: limit > 0 ? await fetch(skip, limit) : [], count: counted.count };
  const at = counted.below;
  const count = counted.count + 1;
  if (limit <= 0 || skip >= count) return { ids: [], count };
  if (skip + limit <= at) return { ids: await fetch(skip, limit), count };
  if (skip > at) return { ids: await fetch(skip - 1, limit), count };
  const ids = limit > 1 ? await fetch(skip, limit - 1) : [];
  ids.splice(at - skip, 0, extra);
  return { ids, count };
}
