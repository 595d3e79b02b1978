// `npm run bench -- --scale 10k|100k|1M`: loads one seeded data set into this service, OpenFGA and SpiceDB, one system at a
// time on the same machine, drives each with the same load generator in its own process, checks every answer against the
// generator's, and writes the figures side by side to bench/results/<date>-<scale>.md.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../../infra/stack.js';
import { cpuSeconds, cpuShares } from '../cpu.js';
import { checkPairs, dataSet, type DataSet, type Tuple } from './dataset.js';
import { parseScale } from './scale.js';
import { run, type Figures, type Job } from './loadgen.js';
import { renderReport, type Result } from './report.js';
import { rssMiB, sleep, type System } from './system.js';
import { openfga } from './systems/openfga.js';
import { ours } from './systems/ours.js';
import { spicedb } from './systems/spicedb.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const show = (f: Figures) => (f.requests ? `${f.rate.toFixed(0)}/s p50 ${f.p50.toFixed(2)} ms p99 ${f.p99.toFixed(2)} ms` : 'no answers')
  + ` (${f.requests} answers, ${f.wrong} wrong, ${f.errors} errors)${f.firstProblem ? `; first problem: ${f.firstProblem.slice(0, 300)}` : ''}`;
const SYSTEMS: Record<string, (n: number) => System> = {
  ours: (n) => ours(n, (l) => say(`  ${l}`), args.profile),
  'openfga-pg': () => openfga('postgres', (l) => say(`  ${l}`)),
  'openfga-memory': () => openfga('memory', (l) => say(`  ${l}`)),
  'spicedb-memory': () => spicedb('memory', (l) => say(`  ${l}`)),
  'spicedb-pg': () => spicedb('postgres', (l) => say(`  ${l}`)),
};

const { values: args } = parseArgs({ options: {
  scale: { type: 'string', default: '10k' },
  systems: { type: 'string', default: Object.keys(SYSTEMS).join(',') },
  seconds: { type: 'string', default: '10' },
  out: { type: 'string' },
  profile: { type: 'boolean', default: false },
  'load-minutes': { type: 'string', default: '30' },
} });

const CONCURRENCY = [1, 8, 32];
const WORK = join(ROOT, '.data', 'bench-jobs');

/** Runs one job in the load generator's own process. */
function drive(job: Job, name: string): Promise<Figures> {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `${name}.json`);
  writeFileSync(file, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'compare', 'loadgen.ts'), file], { cwd: ROOT, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        rmSync(file, { force: true });
        if (err) reject(new Error(`load generator failed: ${stderr || err.message}`)); else resolve(JSON.parse(stdout) as Figures);
      });
  });
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

async function measure(system: System, set: DataSet, tuples: Tuple[], seconds: number): Promise<Result> {
  const result: Result = { label: system.label, version: '', cold: {}, warm: {}, lists: {}, rss: {}, wrong: 0, errors: 0, problems: [] };
  const t0 = Date.now();
  await system.start();
  result.version = system.version;
  say(`  started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const l0 = Date.now();
  let lastSay = Date.now();
  let loaded = 0;
  const loading = system.load(tuples, (done) => {
    loaded = done;
    if (Date.now() - lastSay > 15_000) { lastSay = Date.now(); say(`  loaded ${done} / ${tuples.length}`); }
  });
  loading.catch(() => undefined); // a load given up on fails once its server stops
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([loading, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up loading after ${args['load-minutes']} min: ${loaded} of ${tuples.length} tuples acknowledged`)),
      Number(args['load-minutes']) * 60_000);
  })]).finally(() => clearTimeout(timer));
  const acked = (Date.now() - l0) / 1000;
  await system.settled();
  const visible = (Date.now() - l0) / 1000;
  result.load = { acked: tuples.length / acked, visible: tuples.length / visible, seconds: visible };
  say(`  load: ${tuples.length} tuples acknowledged at ${result.load.acked.toFixed(0)}/s, visible at ${result.load.visible.toFixed(0)}/s (${visible.toFixed(1)} s)`);
  const rssLoaded = rssMiB(system.pids());
  await system.beforeReads?.();

  const target = system.target();
  const job = (requests: Job['requests'], concurrency: number, answer = target.check, cycle = false): Job =>
    ({ base: target.base, headers: target.headers, concurrency, seconds, answer, cycle, requests });
  const note = (f: Figures) => {
    result.wrong += f.wrong;
    result.errors += f.errors;
    if (f.firstProblem && result.problems.length < 5) result.problems.push(f.firstProblem);
  };
  const asks = (pairs: Array<[number, number]>) => pairs.map(([u, d]) => ({
    ...system.check(`User:u${u}`, 'read', `Document:d${d}`), expect: set.allowed(u, d) }));

  // Cold: every check distinct, and no phase repeats another's, so no cache answers twice.
  const available = Math.floor((set.users * set.docs) / 2) - 2_000;
  const perPhase = Math.min(12_000 * seconds, Math.floor(available / (CONCURRENCY.length + 1)));
  const pairs = checkPairs(set, perPhase * (CONCURRENCY.length + 1) + 2_000, 7);
  // Warm-up, not reported: JIT compilers (Neo4j's JVM, V8, Go's none) and connection pools settle on distinct checks
  // that the measured phases never ask again.
  note(await drive({ ...job(asks(pairs.slice(CONCURRENCY.length * perPhase, (CONCURRENCY.length + 1) * perPhase)), 8), seconds: 3 }, 'warm-up'));
  for (const [i, c] of CONCURRENCY.entries()) {
    const cpu0 = cpuSeconds(system.pids());
    const t = Date.now();
    const f = await drive(job(asks(pairs.slice(i * perPhase, (i + 1) * perPhase)), c), `cold-${c}`);
    note(f);
    result.cold[c] = f;
    say(`  cold checks c=${c}: ${show(f)}`);
    say(`    cpu: ${cpuShares(cpu0, cpuSeconds(system.pids()), (Date.now() - t) / 1000, cpus().length)} (the load generator uses the rest)`);
  }

  // Warm: a working set of 2,000 checks, asked once to fill caches, then cycled.
  const working = asks(pairs.slice(-2_000));
  note(await drive({ ...job(working, 8), seconds: 3 * seconds }, 'prime')); // a system too slow to ask them all in time is not warm either
  const before = await system.cacheCounts?.();
  for (const c of CONCURRENCY) {
    const f = await drive(job(working, c, target.check, true), `warm-${c}`);
    note(f);
    result.warm[c] = f;
    say(`  warm checks c=${c}: ${show(f)}`);
  }
  const after = await system.cacheCounts?.();
  if (before && after && after.total > before.total) result.hitRatio = (after.hits - before.hits) / (after.total - before.total);

  // Lists: each probe user reads exactly `count` documents; the first ask is cold, the rest may be cached.
  for (const { user, count } of set.lists) {
    const f = await drive({ ...job([{ ...system.list(`User:${user}`, 'read', 'Document'), expect: count }], 1, target.list, true),
      seconds: Math.min(seconds, 5) }, `list-${count}`);
    note(f);
    result.lists[count] = f;
    say(`  list objects (${count} results): ${show(f)}`);
  }

  // Write-to-visible: a new member of the team above a document's owner, then checks until the document is readable.
  const lags: number[] = [];
  for (let i = 0; i < 20; i++) {
    const d = (i * 7919) % set.docs;
    const owner = set.teams - 1 - (d % Math.ceil(set.teams / 2));
    const team = owner === 0 ? 0 : Math.floor((owner - 1) / 4);
    const t = performance.now();
    await system.write([`User:w${i}`, 'member', `Team:t${team}`]);
    const probe = { ...system.check(`User:w${i}`, 'read', `Document:d${d}`), expect: true };
    for (;;) {
      const f = await run({ ...job([probe], 1), seconds: 0.001 });
      if (f.wrong === 0 && f.errors === 0) break;
      if (performance.now() - t > 30_000) { result.problems.push(`write ${i} not visible after 30 s`); break; }
      await sleep(20);
    }
    lags.push(performance.now() - t);
  }
  lags.sort((a, b) => a - b);
  result.visible = { p50: lags[Math.floor(lags.length / 2)]!, max: lags[lags.length - 1]! };
  say(`  write-to-visible: p50 ${result.visible.p50.toFixed(0)} ms, max ${result.visible.max.toFixed(0)} ms`);

  const rssEnd = rssMiB(system.pids());
  for (const k of new Set([...Object.keys(rssLoaded), ...Object.keys(rssEnd)])) result.rss[k] = Math.max(rssLoaded[k] ?? 0, rssEnd[k] ?? 0);
  say(`  memory (PSS, MiB): ${Object.entries(result.rss).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}; total ${sum(result.rss).toFixed(0)}`);
  return result;
}

async function main() {
  const n = parseScale(args.scale);
  const seconds = Number(args.seconds);
  const chosen = args.systems.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of chosen) if (!SYSTEMS[s]) throw new Error(`unknown system ${s}; choose from ${Object.keys(SYSTEMS).join(', ')}`);
  const set = dataSet(n);
  const tuples = [...set.tuples()];
  say(`data set: ${tuples.length} tuples (${set.users} users, ${set.teams} teams in a tree, ${set.docs} documents, list probes ${set.lists.map((l) => l.count).join('/')})`);
  const results: Result[] = [];
  for (const name of chosen) {
    const system = SYSTEMS[name]!(tuples.length);
    say(`\n${system.label}`);
    // Ctrl-C stops the servers of the system under test too (they run in their own process groups).
    const interrupt = () => void system.stop().then(() => process.exit(130));
    process.once('SIGINT', interrupt);
    try {
      results.push(await measure(system, set, tuples, seconds));
    } catch (e) {
      say(`  failed: ${(e as Error).message}`);
      results.push({ label: system.label, version: '', cold: {}, warm: {}, lists: {}, rss: {}, wrong: 0, errors: 1, problems: [(e as Error).message], failed: true });
    } finally {
      await system.stop();
      process.removeListener('SIGINT', interrupt);
    }
  }
  const date = new Date().toISOString().slice(0, 10);
  const out = args.out ?? join(ROOT, 'bench', 'results', `${date}-${args.scale}.md`);
  mkdirSync(join(out, '..'), { recursive: true });
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const text = renderReport({ date, scale: args.scale, tuples: tuples.length, set, seconds, machine, results });
  writeFileSync(out, text);
  say(`\n${text}\nwritten to ${out}`);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
