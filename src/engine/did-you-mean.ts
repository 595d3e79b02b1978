// "Did you mean": the nearest known name to a misspelt one, shared by the lint, the write errors and check reasons.

/** Edit distance up to 2, case-insensitive; larger distances are not suggestions. */
export function near(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    if (Math.abs(c.length - word.length) >= bestD) continue;
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) { best = c; bestD = d; }
  }
  return best;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/** ` (did you mean x?)`, or nothing when no candidate is near. */
export const hint = (word: string, candidates: Iterable<string>): string => {
  const n = near(word, candidates);
  return n ? ` (did you mean ${n}?)` : '';
};
