// Seeded shuffles (mulberry32) for `authz test --shuffle`: the same seed gives the same orders on every machine.

/** Numbers in [0, 1) from a seed (mulberry32): the tests' fuzzing uses the same generator. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffler(seed: number): <T>(items: readonly T[]) => T[] {
  const next = mulberry32(seed);
  return <T>(items: readonly T[]) => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}
