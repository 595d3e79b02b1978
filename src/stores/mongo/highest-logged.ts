// The highest revision the change log holds, found by point reads: FerretDB v1 sorts the whole log to answer `sort _id -1`.
import type { Collection } from 'mongodb';

/**
 * Asked from the durable mark (revision-mark.ts), at or above every entry logged since it existed: past it, only
 * entries logged before it existed are found. A run of WINDOW failed writes there would hide what follows it (an
 * outage burns one revision per refused write); the mark makes the seed exact for every write since. Otherwise a
 * window of that many revisions holds an entry exactly when it starts at or below the highest one. So the highest is found by an exponential, then a binary
 * search over windows, each asked by `_id` lookups (indexed everywhere), about 35 windows at 1M revisions. The sort it
 * replaces read and sorted every entry in FerretDB, past the 60 s command bound at 1M, so a process never started.
 */
const WINDOW = 100;
/** Lookups in flight at once; a window usually answers in its first batch. */
const PARALLEL = 25;

export async function highestLogged(log: Collection<{ _id: number }>, from = 0): Promise<number> {
  const has = async (r: number) => (await log.findOne({ _id: r }, { projection: { _id: 1 } })) !== null;
  const anyIn = async (x: number) => {
    for (let i = 0; i < WINDOW; i += PARALLEL) {
      const hits = await Promise.all(Array.from({ length: Math.min(PARALLEL, WINDOW - i) }, (_, k) => has(x + i + k)));
      if (hits.some(Boolean)) return true;
    }
    return false;
  };
  let low = Math.max(from, 1);
  if (!(await anyIn(low))) return from;
  // anyIn(low) holds and anyIn(high) does not; the highest revision is the largest x with anyIn(x).
  let step = WINDOW;
  while (await anyIn(low + step)) {
    low += step;
    step *= 2;
  }
  let high = low + step;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await anyIn(mid)) low = mid; else high = mid;
  }
  return low;
}
