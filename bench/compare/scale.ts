// `--scale` as a tuple count: 10k, 100k, 1M or a plain number.
export function parseScale(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(s);
  if (!m) throw new Error(`--scale takes a tuple count such as 10k, 100k or 1M, not ${s}`);
  const unit = m[2]?.toLowerCase();
  return Math.round(Number(m[1]) * (unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1));
}
