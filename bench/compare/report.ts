// The comparison's result file: one table with every system side by side, the ratio to the best peer, and the goals.
import type { DataSet } from './dataset.js';
import type { Figures } from './loadgen.js';

export interface Result {
  label: string;
  /** One of ours (the report compares each of ours with the best peer). */
  ours: boolean;
  version: string;
  cold: Record<number, Figures>;
  warm: Record<number, Figures>;
  hitRatio?: number;
  /** List probes, cold: distinct subjects, each asked once. */
  lists: Record<number, Figures>;
  /** List probes, warm: one subject asked over and over. */
  listsWarm: Record<number, Figures>;
  load?: { acked: number; visible: number; seconds: number };
  visible?: { p50: number; max: number };
  /** PSS in MiB per process, the larger of once loaded and at the end. */
  rss: Record<string, number>;
  /** PSS in MiB per process once loaded and at the end of the read phases. */
  memory: { loaded: Record<string, number>; end: Record<string, number> };
  wrong: number;
  errors: number;
  problems: string[];
  /** How the system was configured, and on whose advice. */
  notes: string[];
  failed?: boolean;
}

interface Report {
  date: string;
  scale: string;
  tuples: number;
  set: DataSet;
  seconds: number;
  machine: string;
  results: Result[];
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const total = (r: Result) => Object.values(r.rss).reduce((a, b) => a + b, 0);

/** A row: each system's cell, and how each of ours compares with the best peer (`higher` says which way is better). */
function row(label: string, results: Result[], value: (r: Result) => number | undefined, cell: (r: Result) => string, higher: boolean): string {
  const peers = results.filter((r) => !r.ours);
  const best = peers.map(value).filter((v): v is number => v !== undefined && Number.isFinite(v) && v > 0)
    .reduce<number | undefined>((b, v) => (b === undefined ? v : higher ? Math.max(b, v) : Math.min(b, v)), undefined);
  const ratio = (mine: Result) => {
    const m = value(mine);
    return m === undefined || best === undefined || !Number.isFinite(m) || m <= 0 ? '–'
      : higher ? `${(m / best).toFixed(2)}×` : `${(best / m).toFixed(2)}×`;
  };
  return `| ${label} | ${results.map((r) => (value(r) === undefined ? '–' : cell(r))).join(' | ')} | ${results.filter((r) => r.ours).map(ratio).join(' | ')} |`;
}

const mib = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
const processes = (results: Result[]) => [...new Set(results.flatMap((r) => [...Object.keys(r.memory.loaded), ...Object.keys(r.memory.end)]))];

/** Each process's PSS once loaded and at the end, one row a system. */
function memoryTable(results: Result[]): string[] {
  const names = processes(results);
  const cell = (r: Result, k: string) => (k in r.memory.loaded || k in r.memory.end
    ? `${n0(r.memory.loaded[k] ?? 0)} / ${n0(r.memory.end[k] ?? 0)}` : '–');
  return [
    `| PSS, MiB (once loaded / at the end) | ${names.join(' | ')} | total |`,
    `|---|${names.map(() => '---:|').join('')}---:|`,
    ...results.filter((r) => !r.failed).map((r) => `| ${r.label} | ${names.map((k) => cell(r, k)).join(' | ')} | ${n0(mib(r.memory.loaded))} / ${n0(mib(r.memory.end))} |`),
  ];
}

export function renderReport(rep: Report): string {
  const { results } = rep;
  const mine = results.filter((r) => r.ours);
  const lines: string[] = [];
  lines.push(`# Read path against OpenFGA and SpiceDB: ${rep.scale} (${n0(rep.tuples)} tuples)`, '');
  lines.push(`${rep.date}; ${rep.machine}. One run, one system at a time, all over HTTP on loopback; the load generator runs in its own process, closed loop.`);
  lines.push(
    `Data set: ${n0(rep.set.users)} users in two teams each, ${n0(rep.set.teams)} teams in a tree (a parent team owns each child), ${
      n0(rep.set.docs)
    } documents owned by a team with two direct readers each, and list probes reading exactly ${rep.set.lists.map((l) => n0(l.count)).join(' / ')} documents (${
      rep.set.lists.map((l) => `${l.cold.length} cold`).join(' / ')
    } probes and one warm, each through tuples of its own).`,
  );
  lines.push(
    `Each check phase runs ${rep.seconds} s. Cold: every check distinct, never repeated across phases (half allowed by construction). Warm: 2,000 checks asked once, then cycled. Lists cold: each probe a distinct subject with the same result size, asked once, one at a time. Lists warm: one more probe of that size repeated, so after the first ask caches may answer. Every answer is compared with the generator's. With two service processes the load generator sends each request to the next process (a cycled request to the other one on its next pass).`,
    '',
  );
  lines.push('| system | version | configuration |', '|---|---|---|',
    ...results.map((r) => `| ${r.label} | ${r.version || (r.failed ? 'did not run' : '')} | ${r.notes.join('; ')} |`), '');
  const ratios = mine.map((r) => `${r.label} vs best peer`).join(' | ');
  lines.push(`| | ${results.map((r) => r.label).join(' | ')} | ${ratios} (above 1: ours ahead) |`,
    `|---|${results.map(() => '---:|').join('')}${mine.map(() => '---:|').join('')}`);
  const rate = (f?: Figures) => f && f.requests ? f.rate : undefined;
  for (const kind of ['cold', 'warm'] as const) {
    for (const c of [1, 8, 32]) {
      lines.push(
        row(`check ${kind}, c=${c}: checks/s (p50 / p99 ms)`, results, (r) => rate(r[kind][c]), (r) => `${n0(r[kind][c]!.rate)} (${ms(r[kind][c]!.p50)} / ${ms(r[kind][c]!.p99)})`,
          true),
      );
    }
  }
  lines.push(row('decision cache hits, warm', results, (r) => r.hitRatio, (r) => `${(100 * r.hitRatio!).toFixed(1)}%`, true));
  for (const [kind, pick] of [['cold', (r: Result) => r.lists], ['warm, one probe repeated', (r: Result) => r.listsWarm]] as const) {
    for (const { count, cold } of rep.set.lists) {
      const asked = kind === 'cold' ? `, ${cold.length} probes` : '';
      lines.push(
        row(`list objects ${kind}, ${n0(count)} results${asked}: p50 (p99) ms`, results, (r) => (pick(r)[count]?.requests ? pick(r)[count]!.p50 : undefined), (r) =>
          `${ms(pick(r)[count]!.p50)} (${ms(pick(r)[count]!.p99)})`, false),
      );
    }
  }
  lines.push(row('load: tuples/s acknowledged', results, (r) => r.load?.acked, (r) => n0(r.load!.acked), true));
  lines.push(row('load: tuples/s until visible to checks', results, (r) => r.load?.visible, (r) => n0(r.load!.visible), true));
  lines.push(row('write-to-visible (new member, inherited read): p50 / max ms', results, (r) => r.visible?.p50, (r) => `${n0(r.visible!.p50)} / ${n0(r.visible!.max)}`, false));
  lines.push(
    row('memory: PSS of every process, MiB', results, (r) => (Object.keys(r.rss).length ? total(r) : undefined),
      (r) => `${n0(total(r))} (${Object.entries(r.rss).map(([k, v]) => `${k} ${n0(v)}`).join(', ')})`, false),
  );
  lines.push(`| wrong answers / errors | ${results.map((r) => `${r.wrong} / ${r.errors}`).join(' | ')} |${mine.map(() => ' |').join('')}`, '');
  lines.push("Memory of each process (PSS: pages shared between processes, such as PostgreSQL's shared buffers, counted once):", '', ...memoryTable(results), '');
  const problems = results.filter((r) => r.problems.length);
  if (problems.length) {
    lines.push('Problems seen (first of each phase):', '');
    for (const r of problems) for (const p of r.problems) lines.push(`- ${r.label}: ${p.slice(0, 300)}`);
    lines.push('');
  }
  lines.push(...goals(rep), '');
  return lines.join('\n');
}

/** With several scales: each process's memory at each, one table a system. */
export function renderMemory(date: string, machine: string, byScale: Array<{ scale: string; results: Result[] }>): string {
  const lines = [`# Memory at each scale (PSS, MiB, once loaded / at the end of the read phases)`, '', `${date}; ${machine}.`, ''];
  const labels = [...new Set(byScale.flatMap((s) => s.results.map((r) => r.label)))];
  for (const label of labels) {
    const runs = byScale.map((s) => ({ scale: s.scale, r: s.results.find((r) => r.label === label && !r.failed) }))
      .filter((x): x is { scale: string; r: Result } => x.r !== undefined);
    if (!runs.length) continue;
    const names = processes(runs.map((x) => x.r));
    lines.push(`## ${label}`, '', `| scale | ${names.join(' | ')} | total |`, `|---|${names.map(() => '---:|').join('')}---:|`);
    for (const { scale, r } of runs) {
      lines.push(
        `| ${scale} | ${names.map((k) => (k in r.memory.loaded || k in r.memory.end ? `${n0(r.memory.loaded[k] ?? 0)} / ${n0(r.memory.end[k] ?? 0)}` : '–')).join(' | ')} | ${
          n0(mib(r.memory.loaded))
        } / ${n0(mib(r.memory.end))} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** The issue's goals, each with our figure and whether it is met (never asserted anywhere: printed). */
function goals(rep: Report): string[] {
  const mine = rep.results.find((r) => r.ours);
  const peers = rep.results.filter((r) => !r.ours);
  if (!mine || mine.failed) return ['Goals: not evaluated (our run failed).'];
  const bestPeerCold = Math.max(0, ...peers.map((p) => p.cold[32]?.rate ?? 0));
  const tick = (ok: boolean) => (ok ? 'met' : '**missed**');
  const out = [`Goals (${mine.label}; checks at concurrency 32, lists cold):`, ''];
  // A phase with no answers has no latencies (they come back from the load generator as null).
  const answered = (f?: Figures) => (f?.requests ? f : undefined);
  const w = answered(mine.warm[32]);
  const c = answered(mine.cold[32]);
  if (w) out.push(`- warm p50 ≤ 1 ms and p99 ≤ 5 ms: ${ms(w.p50)} / ${ms(w.p99)} ms, ${tick(w.p50 <= 1 && w.p99 <= 5)}`);
  if (c) out.push(`- cold p99 ≤ 10 ms: ${ms(c.p99)} ms, ${tick(c.p99 <= 10)}`);
  if (c && bestPeerCold) {
    out.push(`- cold throughput ≥ 3× the best peer: ${(c.rate / bestPeerCold).toFixed(2)}× (${n0(c.rate)} against ${n0(bestPeerCold)}/s), ${tick(c.rate >= 3 * bestPeerCold)}`);
  }
  if (w) out.push(`- warm ≥ 15,000 checks/s: ${n0(w.rate)}/s, ${tick(w.rate >= 15_000)}`);
  const big = mine.lists[10000];
  if (big?.requests) out.push(`- list objects with 10,000 results ≤ 50 ms: p50 ${ms(big.p50)} ms, ${tick(big.p50 <= 50)}`);
  for (const { count } of rep.set.lists) {
    const m = mine.lists[count];
    const best = Math.min(Infinity, ...peers.map((p) => (p.lists[count]?.requests ? p.lists[count]!.p50 : Infinity)));
    if (m?.requests && Number.isFinite(best)) {
      out.push(`- list objects, ${n0(count)} results, no slower than the best peer: ${ms(m.p50)} against ${ms(best)} ms, ${tick(m.p50 <= best)}`);
    }
  }
  const more = rep.results.filter((r) => r.ours && r !== mine && !r.failed);
  for (const r of more) {
    const x = (a?: Figures, b?: Figures) => (a?.requests && b?.requests ? `${(a.rate / b.rate).toFixed(2)}×` : '–');
    out.push(`- (not a goal) ${r.label} against one: cold ${x(r.cold[32], c)}, warm ${x(r.warm[32], w)} the checks/s`);
  }
  const all = rep.results.filter((r) => !r.failed);
  out.push(`- correct answers: ${all.map((r) => `${r.label} ${r.wrong === 0 && r.errors === 0 ? '100%' : `${r.wrong} wrong, ${r.errors} errors`}`).join('; ')}`);
  return out;
}
