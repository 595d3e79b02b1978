// Printing bench figures: a line to stdout, and percentiles of latencies in milliseconds.
export const say = (s: string) => process.stdout.write(`${s}\n`);
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
export const fmt = (xs: number[]) => `p50 ${pct(xs, 0.5).toFixed(2)} ms  p95 ${pct(xs, 0.95).toFixed(2)} ms  p99 ${pct(xs, 0.99).toFixed(2)} ms`;
