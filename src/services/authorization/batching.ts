// How the applier coalesces waiting entries into one batch: single writes first, then the oldest, up to a bound of tuples.
import type { ChangeEntry } from '../../stores/ports/change-log.js';

/** Takes from `waiting` (reordered in place) the next batch: at least one entry, and at most `maxTuples` tuples past it. */
export function takeBatch<W extends { entry: ChangeEntry; sync: boolean }>(waiting: W[], maxTuples: number): W[] {
  waiting.sort((a, b) => Number(b.sync) - Number(a.sync) || a.entry.revision - b.entry.revision);
  const out: W[] = [];
  let n = 0;
  while (waiting.length && (out.length === 0 || n + (waiting[0]!.entry.tuples?.length ?? 0) <= maxTuples)) {
    const w = waiting.shift()!;
    n += w.entry.tuples?.length ?? 0;
    out.push(w);
  }
  return out;
}
