// The comparison's result file: one table with every system side by side, the ratio to the best peer, and the goals.
import type { DataSet } from './dataset.js';
import type { Figures } from './loadgen.js';

export interface Result {
  label: string;
  version: string;
  cold: Record<number, Figures>;
  warm: Record<number, Figures>;
  hitRatio?: number;
  lists: Record<number, Figures>;
  load?: { acked: number; visible: number; seconds: number };
  visible?: { p50: number; max: number };
  rss: Record<string, number>;
  wrong: number;
  errors: number;
  problems: string[];
  failed?: boolean;
}

interface Report { date: string; scale: string; tuples: number; set: DataSet; seconds: number; machine: string; results: Result[] }

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const total = (r: Result) => Object.values(r.rss).reduce((a, b) => a + b, 0);

/** A row: each system's cell, and how ours compares with the best peer (`higher` says which way is better). */
function row(label: string, results: Result[], value: (r: Result) => number | undefined, cell: (r: Result) => string, higher: boolean): string {
  const [mine, ...peers] = results;
  const best = peers.map(value).filter((v): v is number => v !== undefined && Number.isFinite(v) && v > 0)
    .reduce<number | undefined>((b, v) => (b === undefined ? v : higher ? Math.max(b, v) : Math.min(b, v)), undefined);
  const m = mine ? value(mine) : undefined;
  const ratio = m === undefined || best === undefined || !Number.isFinite(m) || m <= 0 ? '–'
    : higher ? `${(m / best).toFixed(2)}×` : `${(best / m).toFixed(2)}×`;
  return `| ${label} | ${results.map((r) => (value(r) === undefined ? '–' : cell(r))).join(' | ')} | ${ratio} |`;
}

export function renderReport(rep: Report): string {
  const { results } = rep;
  const lines: string[] = [];
  lines.push(`# Read path against OpenFGA and SpiceDB: ${rep.scale} (${n0(rep.tuples)} tuples)`, '');
  lines.push(`${rep.date}; ${rep.machine}. One run, one system at a time, all over HTTP on loopback; the load generator runs in its own process, closed loop.`);
  lines.push(`Data set: ${n0(rep.set.users)} users in two teams each, ${n0(rep.set.teams)} teams in a tree (a parent team owns each child), ${n0(rep.set.docs)} documents owned by a team with two direct readers each, and list probes reading exactly ${rep.set.lists.map((l) => n0(l.count)).join(' / ')} documents.`);
  lines.push(`Each check phase runs ${rep.seconds} s. Cold: every check distinct, never repeated across phases (half allowed by construction). Warm: 2,000 checks asked once, then cycled. Lists: the same probe repeated, so after the first ask caches may answer. Every answer is compared with the generator's.`, '');
  lines.push('| system | version |', '|---|---|', ...results.map((r) => `| ${r.label} | ${r.version || (r.failed ? 'did not run' : '')} |`), '');
  lines.push(`| | ${results.map((r) => r.label).join(' | ')} | ours vs best peer (above 1: ours ahead) |`, `|---|${results.map(() => '---:|').join('')}---:|`);
  const rate = (f?: Figures) => f && f.requests ? f.rate : undefined;
  for (const kind of ['cold', 'warm'] as const) {
    for (const c of [1, 8, 32]) {
      lines.push(row(`check ${kind}, c=${c}: checks/s (p50 / p99 ms)`, results, (r) => rate(r[kind][c]),
        (r) => `${n0(r[kind][c]!.rate)} (${ms(r[kind][c]!.p50)} / ${ms(r[kind][c]!.p99)})`, true));
    }
  }
  lines.push(row('decision cache hits, warm', results, (r) => r.hitRatio, (r) => `${(100 * r.hitRatio!).toFixed(1)}%`, true));
  for (const { count } of rep.set.lists) {
    lines.push(row(`list objects, ${n0(count)} results: p50 (p99) ms`, results, (r) => (r.lists[count]?.requests ? r.lists[count]!.p50 : undefined),
      (r) => `${ms(r.lists[count]!.p50)} (${ms(r.lists[count]!.p99)})`, false));
  }
  lines.push(row('load: tuples/s acknowledged', results, (r) => r.load?.acked, (r) => n0(r.load!.acked), true));
  lines.push(row('load: tuples/s until visible to checks', results, (r) => r.load?.visible, (r) => n0(r.load!.visible), true));
  lines.push(row('write-to-visible (new member, inherited read): p50 / max ms', results, (r) => r.visible?.p50, (r) => `${n0(r.visible!.p50)} / ${n0(r.visible!.max)}`, false));
  lines.push(row('memory: PSS of every process, MiB', results, (r) => (Object.keys(r.rss).length ? total(r) : undefined),
    (r) => `${n0(total(r))} (${Object.entries(r.rss).map(([k, v]) => `${k} ${n0(v)}`).join(', ')})`, false));
  lines.push(`| wrong answers / errors | ${results.map((r) => `${r.wrong} / ${r.errors}`).join(' | ')} | |`, '');
  const problems = results.filter((r) => r.problems.length);
  if (problems.length) {
    lines.push('Problems seen (first of each phase):', '');
    for (const r of problems) for (const p of r.problems) lines.push(`- ${r.label}: ${p.slice(0, 300)}`);
    lines.push('');
  }
  lines.push(...goals(rep), '');
  return lines.join('\n');
}

/** The issue's goals, each with our figure and whether it is met (never asserted anywhere: printed). */
function goals(rep: Report): string[] {
  const [mine, ...peers] = rep.results;
  if (!mine || mine.failed) return ['Goals: not evaluated (our run failed).'];
  const bestPeerCold = Math.max(0, ...peers.map((p) => p.cold[32]?.rate ?? 0));
  const tick = (ok: boolean) => (ok ? 'met' : '**missed**');
  const out = ['Goals (concurrency 32):', ''];
  const w = mine.warm[32];
  const c = mine.cold[32];
  if (w) out.push(`- warm p50 ≤ 1 ms and p99 ≤ 5 ms: ${ms(w.p50)} / ${ms(w.p99)} ms, ${tick(w.p50 <= 1 && w.p99 <= 5)}`);
  if (c) out.push(`- cold p99 ≤ 10 ms: ${ms(c.p99)} ms, ${tick(c.p99 <= 10)}`);
  if (c && bestPeerCold) out.push(`- cold throughput ≥ 3× the best peer: ${(c.rate / bestPeerCold).toFixed(2)}× (${n0(c.rate)} against ${n0(bestPeerCold)}/s), ${tick(c.rate >= 3 * bestPeerCold)}`);
  if (w) out.push(`- warm ≥ 15,000 checks/s: ${n0(w.rate)}/s, ${tick(w.rate >= 15_000)}`);
  const big = mine.lists[10000];
  if (big?.requests) out.push(`- list objects with 10,000 results ≤ 50 ms: p50 ${ms(big.p50)} ms, ${tick(big.p50 <= 50)}`);
  for (const { count } of rep.set.lists) {
    const m = mine.lists[count];
    const best = Math.min(Infinity, ...peers.map((p) => (p.lists[count]?.requests ? p.lists[count]!.p50 : Infinity)));
    if (m?.requests && Number.isFinite(best)) out.push(`- list objects, ${n0(count)} results, no slower than the best peer: ${ms(m.p50)} against ${ms(best)} ms, ${tick(m.p50 <= best)}`);
  }
  const all = rep.results.filter((r) => !r.failed);
  out.push(`- correct answers: ${all.map((r) => `${r.label} ${r.wrong === 0 && r.errors === 0 ? '100%' : `${r.wrong} wrong, ${r.errors} errors`}`).join('; ')}`);
  return out;
}
