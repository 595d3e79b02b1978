// The comparison's data set: users, a tree of teams and documents, seeded, with the answer every check and list must give.
// Shape at N tuples: N/100 users in two teams each, N/1000 teams where a parent team owns each child, documents owned
// by a team with two direct readers each, and for each list size k a few probe users who each read exactly k documents
// (half through a team of their own): distinct subjects, so every cold list probe asks something no cache has seen.

export type Tuple = readonly [subject: string, relation: string, resource: string];

export interface DataSet {
  users: number;
  teams: number;
  docs: number;
  /** Every tuple, in a fixed order (callers shuffle if they want to). */
  tuples(): Generator<Tuple>;
  size: number;
  /** The generator's own answer to "may User:u{u} read Document:d{d}". */
  allowed(u: number, d: number): boolean;
  /**
   * List probes: each of `cold` and `warm` (`User:{id}`) reads exactly `count` documents, through tuples of its own.
   * The cold ones are each asked once; the warm one is asked over and over.
   */
  lists: Array<{ count: number; cold: string[]; warm: string }>;
}

export const LIST_SIZES = [10, 100, 1000, 10000];
/** Tuples the probes of one list size may add, as a share of the data set, and the cold probes of a size, at most. */
const PROBE_SHARE = 0.04;
const MAX_COLD_PROBES = 50;
/** A size whose share pays for fewer cold probes than this is left out (a p50 of two asks says little). */
const MIN_COLD_PROBES = 3;

/** How many cold probes a list size gets at `n` tuples (0: the size is left out). */
export function coldProbes(n: number, count: number, docs: number): number {
  if (count > docs) return 0;
  const p = Math.min(MAX_COLD_PROBES, Math.floor((PROBE_SHARE * n) / count));
  return p >= MIN_COLD_PROBES ? p : 0;
}

/** mulberry32: small, fast and good enough to pick check pairs reproducibly. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function dataSet(n: number): DataSet {
  const users = Math.max(10, Math.round(n / 100));
  const teams = Math.max(7, Math.round(n / 1000));
  const docs = Math.max(1, Math.floor((n - users * 2 - teams) / 3));
  const parent = (t: number) => (t === 0 ? -1 : Math.floor((t - 1) / 4));
  const ownerOf = (d: number) => teams - 1 - (d % Math.ceil(teams / 2));
  const readersOf = (d: number) => [(d * 13) % users, (d * 29 + 5) % users];
  const teamsOf = (u: number) => [u % teams, (u * 7) % teams];
  const lists = LIST_SIZES.map((k) => ({ k, p: coldProbes(n, k, docs) })).filter(({ p }) => p > 0).map(({ k, p }) => ({
    count: k,
    cold: Array.from({ length: p }, (_, i) => `l${k}c${i}`),
    warm: `l${k}w`,
  }));
  function* tuples(): Generator<Tuple> {
    for (let t = 1; t < teams; t++) yield [`Team:t${parent(t)}`, 'owner', `Team:t${t}`];
    for (let u = 0; u < users; u++) for (const t of new Set(teamsOf(u))) yield [`User:u${u}`, 'member', `Team:t${t}`];
    for (let d = 0; d < docs; d++) {
      yield [`Team:t${ownerOf(d)}`, 'owner', `Document:d${d}`];
      for (const u of new Set(readersOf(d))) yield [`User:u${u}`, 'reader', `Document:d${d}`];
    }
    // List probes: a team of one owns half the documents, the user reads the other half directly. Each probe starts
    // at another document, so probes of one size share no tuple and no team.
    for (const { count, cold, warm } of lists) {
      for (const [p, user] of [...cold, warm].entries()) {
        const start = (p * 7919 * count) % docs;
        yield [`User:${user}`, 'member', `Team:${user}`];
        for (let i = 0; i < count; i++) {
          const d = (start + i) % docs;
          yield i < count / 2 ? [`Team:${user}`, 'owner', `Document:d${d}`] : [`User:${user}`, 'reader', `Document:d${d}`];
        }
      }
    }
  }
  let size = 0;
  for (const _ of tuples()) size++;
  const allowed = (u: number, d: number) => {
    if (readersOf(d).includes(u)) return true;
    const mine = teamsOf(u);
    for (let t = ownerOf(d); t >= 0; t = parent(t)) if (mine.includes(t)) return true;
    return false;
  };
  return { users, teams, docs, tuples, size, allowed, lists };
}

/**
 * `count` distinct (user, document) pairs, half of them allowed by construction (a member of the owning team or one
 * above it), so both answers are exercised. Pairs never repeat, so no cache can answer one twice.
 */
export function checkPairs(set: DataSet, count: number, seed: number): Array<[number, number]> {
  const next = random(seed);
  const seen = new Set<number>();
  const out: Array<[number, number]> = [];
  const wanted = Math.min(count, Math.floor((set.users * set.docs) / 2));
  for (let i = 0; out.length < wanted; i++) {
    const d = Math.floor(next() * set.docs);
    let u = Math.floor(next() * set.users);
    if (i % 2 === 1) {
      // Climb a random number of steps from the owning team, then pick a user whose first team is that one.
      let t = set.teams - 1 - (d % Math.ceil(set.teams / 2));
      for (let up = Math.floor(next() * 3); up > 0 && t > 0; up--) t = Math.floor((t - 1) / 4);
      const members = Math.floor((set.users - 1 - t) / set.teams) + 1;
      if (members > 0 && t < set.users) u = t + set.teams * Math.floor(next() * members);
    }
    const key = u * set.docs + d;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([u, d]);
  }
  return out;
}
