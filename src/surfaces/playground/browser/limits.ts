// How much of a large scenario the page draws: a file of 50,000 assertions drawn whole took seconds per keystroke (a
// row and a gutter mark each), so failures come first and the rest up to a bound; the summary still counts them all.

/** Rows in the verdict list, and in the list of problems. */
export const MAX_ROWS = 500;
/** Verdict marks in one editor's gutter. */
export const MAX_MARKS = 2000;

/** All of `items` when there are at most `limit`; else the failures first, then passes, in their order; and how many are left out. */
export function failuresFirst<T extends { ok: boolean }>(items: readonly T[], limit: number): { shown: T[]; hidden: number } {
  if (items.length <= limit) return { shown: [...items], hidden: 0 };
  const picked = new Set<number>();
  for (const pass of [false, true]) {
    for (let i = 0; i < items.length && picked.size < limit; i++) if (items[i]!.ok === pass) picked.add(i);
  }
  return { shown: [...picked].sort((a, b) => a - b).map((i) => items[i]!), hidden: items.length - picked.size };
}
