// "Did you mean": the nearest known name to a misspelt one, shared by the lint, the write errors and check reasons.

/** Edit distance up to 2, case-insensitive; larger distances are not suggestions. */
export function near(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    if (Math.abs(c.length - word.length) >= bestD) continue;
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
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

/**
 * One slip of the keyboard apart: the case, one character added, dropped or changed, or two neighbours swapped (`veiw`).
 * Closer than a suggestion: a name two edits away (`audit`, `edit`) is as likely meant as it is.
 */
export function isSlip(word: string, name: string): boolean {
  const a = word.toLowerCase();
  const b = name.toLowerCase();
  if (a === b) return word !== name; // only the case differs
  if (a.length === b.length) {
    const diff = [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
    return diff.length === 1 || (diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!]);
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  for (let i = 0; i < long.length; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true;
  return false;
}

/** ` (did you mean x?)`, or nothing when no candidate is near. */
export const hint = (word: string, candidates: Iterable<string>): string => {
  const n = near(word, candidates);
  return n ? ` (did you mean ${n}?)` : '';
};
