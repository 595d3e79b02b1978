// The soak's figures: a progress line per sample, and the closing tables (memory drift, curve, calls and errors by route).
import type { Sample } from './soak-memory.js';

export interface RouteTotals {
  [route: string]: { n: number; p50: number; p99: number; statuses: Record<string, number> };
}

const f0 = (x: number) => x.toFixed(0);
const f1 = (x: number) => x.toFixed(1);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/** The series measured per sample: each process's RSS, PostgreSQL's PSS, Redis's used_memory and the service's heap. */
export function series(s: Sample): Record<string, number> {
  return {
    ...Object.fromEntries(Object.entries(s.rss).map(([k, v]) => [`${k} RSS`, v])),
    'postgres PSS': s.postgresPss,
    'redis used_memory': s.redisUsed,
    'service heapUsed': s.heapUsed,
    'service external': s.external,
  };
}

export function progressLine(s: Sample, extra: string): string {
  const r = s.rss;
  return `  t ${f0(s.t).padStart(4)} s  ${f0(s.rate ?? 0).padStart(5)}/s  err ${String(s.errors ?? 0).padEnd(3)}${extra} | service ${f0(r.service ?? 0)} (heap ${f0(s.heapUsed)})`
    + ` · neo4j ${f0(r.neo4j ?? 0)} · ferretdb ${f0(r.ferretdb ?? 0)} · postgres ${f0(r.postgres ?? 0)} (pss ${f0(s.postgresPss)})`
    + ` · redis ${f0(r.redis ?? 0)} (used ${f1(s.redisUsed)}) · load ${f0(r['load generator'] ?? 0)} MiB`;
}

export interface Drift {
  name: string;
  start: number;
  end: number;
  min: number;
  max: number;
  drift: number;
  flat: boolean;
}

/** Start and end as the median of the first and last three samples after the warm-up (one sample is noisy), and the drift between. */
export function drifts(samples: Sample[], warmup: number, goal: number): Drift[] {
  const after = samples.filter((s) => s.t >= warmup);
  if (after.length < 2) return [];
  const names = Object.keys(series(after[0]!));
  return names.map((name) => {
    const xs = after.map((s) => series(s)[name] ?? 0);
    const start = median(xs.slice(0, 3));
    const end = median(xs.slice(-3));
    const drift = start > 0 ? (100 * (end - start)) / start : 0;
    return { name, start, end, min: Math.min(...xs), max: Math.max(...xs), drift, flat: Math.abs(drift) <= goal };
  });
}

export function driftTable(rows: Drift[]): string[] {
  return ['| | start (MiB) | end (MiB) | min–max after warm-up | drift | within ±10% |', '|---|---:|---:|---:|---:|:-:|',
    ...rows.map((d) => `| ${d.name} | ${f1(d.start)} | ${f1(d.end)} | ${f1(d.min)}–${f1(d.max)} | ${d.drift >= 0 ? '+' : ''}${f1(d.drift)}% | ${d.flat ? 'yes' : '**no**'} |`)];
}

export function curveTable(samples: Sample[]): string[] {
  const names = Object.keys(series(samples[0]!));
  return [`| t (s) | calls/s | errors | load avg | ${names.join(' | ')} |`, `|---:|---:|---:|---:|${names.map(() => '---:').join('|')}|`,
    ...samples.map((s) => `| ${f0(s.t)} | ${f0(s.rate ?? 0)} | ${s.errors ?? 0} | ${(s.load ?? 0).toFixed(1)} | ${names.map((n) => f1(series(s)[n] ?? 0)).join(' | ')} |`)];
}

export function routeTable(routes: RouteTotals): string[] {
  const rows = Object.entries(routes).sort((a, b) => b[1].n - a[1].n);
  return ['| route | calls | p50 ms | p99 ms | errors | 5xx | not ok (status: count) |', '|---|---:|---:|---:|---:|---:|---|', ...rows.map(([route, r]) => {
    const bad = Object.entries(r.statuses).filter(([k]) => k !== 'ok');
    const errors = bad.reduce((a, [, v]) => a + v, 0);
    const fivexx = bad.filter(([k]) => /^5\d\d/.test(k)).reduce((a, [, v]) => a + v, 0);
    return `| ${route} | ${r.n} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${errors} | ${fivexx} | ${bad.map(([k, v]) => `${k}: ${v}`).join(', ')} |`;
  })];
}

/** Errors of an interval by route, for the progress output: "DELETE …: 404 ×2". */
export function errorsByRoute(routes: RouteTotals): string {
  return Object.entries(routes).flatMap(([route, r]) => Object.entries(r.statuses).filter(([k]) => k !== 'ok').map(([k, v]) => `${route}: ${k} ×${v}`)).join('; ');
}

/** The three routes with the highest p99, for the ramp: what limits the mix's throughput. */
export function slowest(routes: RouteTotals): string {
  return Object.entries(routes).sort((a, b) => b[1].p99 - a[1].p99).slice(0, 3).map(([route, r]) => `${route} ${r.p99.toFixed(0)} ms`).join(', ');
}
