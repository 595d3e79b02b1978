// `npm run bench -- --scale 10k|100k|1M` (or several: `--scale 1k,10k`): loads one seeded data set into this service,
// OpenFGA and SpiceDB, one system at a time on the same machine, drives each with the same load generator in its own
// process, checks every answer against the generator's, and writes the figures side by side to
// bench/results/<date>-<scale>.md (with several scales, also <date>-memory.md: each process's memory at each scale).
// Every server listens on --port-base plus an offset (see Place), so a run never meets the shared dev stack.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../../infra/stack.js';
import { cpuSeconds, cpuShares } from '../cpu.js';
import { checkPairs, dataSet, type DataSet, type Tuple } from './dataset.js';
import { parseScale } from './scale.js';
import { run, type Figures, type Job } from './loadgen.js';
import { renderMemory, renderReport, type Result } from './report.js';
import { rssMiB, sleep, type Place, type System } from './system.js';
import { openfga } from './systems/openfga.js';
import { ours } from './systems/ours.js';
import { spicedb } from './systems/spicedb.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const show = (f: Figures) =>
  (f.requests ? `${f.rate.toFixed(0)}/s p50 ${f.p50.toFixed(2)} ms p99 ${f.p99.toFixed(2)} ms` : 'no answers')
  + ` (${f.requests} answers, ${f.wrong} wrong, ${f.errors} errors)${f.firstProblem ? `; first problem: ${f.firstProblem.slice(0, 300)}` : ''}`;
/** Our systems come first (the report compares each with the best peer). */
const SYSTEMS: Record<string, (n: number, place: Place) => System> = {
  ours: (n, place) => ours(n, (l) => say(`  ${l}`), args.profile, place),
  'ours-2p': (n, place) => ours(n, (l) => say(`  ${l}`), args.profile, place, 2),
  'openfga-pg': (_, place) => openfga('postgres', (l) => say(`  ${l}`), place),
  'openfga-memory': (_, place) => openfga('memory', (l) => say(`  ${l}`), place),
  'spicedb-memory': (_, place) => spicedb('memory', (l) => say(`  ${l}`), place),
  'spicedb-pg': (_, place) => spicedb('postgres', (l) => say(`  ${l}`), place),
};
const isOurs = (name: string) => name === 'ours' || name.startsWith('ours-');

const { values: args } = parseArgs({ options: {
  scale: { type: 'string', default: '10k' },
  systems: { type: 'string', default: Object.keys(SYSTEMS).join(',') },
  seconds: { type: 'string', default: '10' },
  out: { type: 'string' },
  profile: { type: 'boolean', default: false },
  'load-minutes': { type: 'string', default: '30' },
  'port-base': { type: 'string', default: '29100' },
} });

const CONCURRENCY = [1, 8, 32];
const PORT_BASE = Number(args['port-base']);
const PLACE: Place = { base: PORT_BASE, dir: join(ROOT, '.data', `bench-${PORT_BASE}`) };
const WORK = join(PLACE.dir, 'jobs');

/** Runs one job in the load generator's own process. */
function drive(job: Job, name: string): Promise<Figures> {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `${name}.json`);
  writeFileSync(file, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'compare', 'loadgen.ts'), file], { cwd: ROOT, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      rmSync(file, { force: true });
      if (err) reject(new Error(`load generator failed: ${stderr || err.message}`)); else resolve(JSON.parse(stdout) as Figures);
    });
  });
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** What the read phases share: the system, its data set, the result they fill, and how to make and note a load job. */
interface Phases {
  system: System;
  set: DataSet;
  result: Result;
  seconds: number;
  target: ReturnType<System['target']>;
  job(requests: Job['requests'], concurrency: number, answer?: Job['answer'], cycle?: boolean): Job;
  note(f: Figures): void;
  asks(pairs: Array<[number, number]>): Job['requests'];
}

async function measure(system: System, set: DataSet, tuples: Tuple[], seconds: number): Promise<Result> {
  const result: Result = { label: system.label, ours: false, version: '', cold: {}, warm: {}, lists: {}, listsWarm: {}, rss: {}, memory: { loaded: {}, end: {} }, wrong: 0,
    errors: 0, problems: [], notes: [] };
  const rssLoaded = await startAndLoad(system, tuples, result);
  await system.beforeReads?.();
  const p = phases(system, set, result, seconds);
  await checks(p);
  await lists(p);
  await writeToVisible(p);

  const rssEnd = rssMiB(system.pids());
  result.memory.end = rssEnd;
  for (const k of new Set([...Object.keys(rssLoaded), ...Object.keys(rssEnd)])) result.rss[k] = Math.max(rssLoaded[k] ?? 0, rssEnd[k] ?? 0);
  say(
    `  memory (PSS, MiB, the larger of once loaded and at the end): ${Object.entries(result.rss).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}; total ${
      sum(result.rss).toFixed(0)
    }`,
  );
  result.notes = system.notes?.() ?? [];
  return result;
}

/** Starts the system and loads the tuples: load rates, and memory once loaded. */
async function startAndLoad(system: System, tuples: Tuple[], result: Result): Promise<Record<string, number>> {
  const t0 = Date.now();
  await system.start();
  result.version = system.version;
  say(`  started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const l0 = Date.now();
  let lastSay = Date.now();
  let loaded = 0;
  const loading = system.load(tuples, (done) => {
    loaded = done;
    if (Date.now() - lastSay > 15_000) {
      lastSay = Date.now();
      say(`  loaded ${done} / ${tuples.length}`);
    }
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
  result.memory.loaded = rssLoaded;
  say(`  memory once loaded (PSS, MiB): ${Object.entries(rssLoaded).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`);
  return rssLoaded;
}

function phases(system: System, set: DataSet, result: Result, seconds: number): Phases {
  const target = system.target();
  const job = (requests: Job['requests'], concurrency: number, answer = target.check, cycle = false): Job => ({ base: target.base, ...(target.bases ? { bases: target.bases } : {}),
    headers: target.headers, concurrency, seconds, answer, cycle, requests });
  const note = (f: Figures) => {
    result.wrong += f.wrong;
    result.errors += f.errors;
    if (f.firstProblem && result.problems.length < 5) result.problems.push(f.firstProblem);
  };
  const asks = (pairs: Array<[number, number]>) =>
    pairs.map(([u, d]) => ({
      ...system.check(`User:u${u}`, 'read', `Document:d${d}`),
      expect: set.allowed(u, d),
    }));
  return { system, set, result, seconds, target, job, note, asks };
}

/** Cold checks (every one distinct) at each concurrency, then warm checks cycling a working set. */
async function checks({ system, set, result, seconds, target, job, note, asks }: Phases): Promise<void> {
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
}

/** List objects, cold (distinct probe users) and warm (one probe repeated), for each list size. */
async function lists({ system, set, result, seconds, target, job, note }: Phases): Promise<void> {
  // Lists, cold: each size's probes are distinct users who read exactly `count` documents through tuples of their own,
  // each asked once, one at a time, so no cache has seen the subject or any tuple under it.
  for (const { cold, count } of set.lists) {
    const requests = cold.map((user) => ({ ...system.list(`User:${user}`, 'read', 'Document'), expect: count }));
    const f = await drive({ ...job(requests, 1, target.list), seconds: Math.max(seconds, 30) }, `list-cold-${count}`);
    note(f);
    result.lists[count] = f;
    say(`  list objects cold (${count} results, ${cold.length} distinct probes): ${show(f)}`);
  }
  // Lists, warm: another probe user of the same size asked over and over, so after the first ask caches may answer.
  for (const { warm, count } of set.lists) {
    const f = await drive({ ...job([{ ...system.list(`User:${warm}`, 'read', 'Document'), expect: count }], 1, target.list, true), seconds: Math.min(seconds, 5) },
      `list-warm-${count}`);
    note(f);
    result.listsWarm[count] = f;
    say(`  list objects warm (${count} results, one probe repeated): ${show(f)}`);
  }
}

/** Write-to-visible: a new member of the team above a document's owner, then checks until the document is readable. */
async function writeToVisible({ system, set, result, job }: Phases): Promise<void> {
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
      if (performance.now() - t > 30_000) {
        result.problems.push(`write ${i} not visible after 30 s`);
        break;
      }
      await sleep(20);
    }
    lags.push(performance.now() - t);
  }
  lags.sort((a, b) => a - b);
  result.visible = { p50: lags[Math.floor(lags.length / 2)]!, max: lags[lags.length - 1]! };
  say(`  write-to-visible: p50 ${result.visible.p50.toFixed(0)} ms, max ${result.visible.max.toFixed(0)} ms`);
}

/** Every chosen system at one scale; writes that scale's result file and returns its results. */
async function runScale(scale: string, chosen: string[], seconds: number, machine: string, date: string): Promise<Result[]> {
  const n = parseScale(scale);
  const set = dataSet(n);
  const tuples = [...set.tuples()];
  say(`\n== ${scale}: ${tuples.length} tuples (${set.users} users, ${set.teams} teams in a tree, ${set.docs} documents, `
    + `list probes ${set.lists.map((l) => `${l.count} × ${l.cold.length} cold + 1 warm`).join(', ')})`);
  const results: Result[] = [];
  for (const name of chosen) {
    const system = SYSTEMS[name]!(tuples.length, PLACE);
    say(`\n${system.label}`);
    // Ctrl-C stops the servers of the system under test too (they run in their own process groups).
    const interrupt = () => void system.stop().then(() => process.exit(130));
    process.once('SIGINT', interrupt);
    try {
      results.push({ ...(await measure(system, set, tuples, seconds)), ours: isOurs(name) });
    } catch (e) {
      say(`  failed: ${(e as Error).message}`);
      results.push({ label: system.label, ours: isOurs(name), version: '', cold: {}, warm: {}, lists: {}, listsWarm: {}, rss: {}, memory: { loaded: {}, end: {} }, wrong: 0,
        errors: 1, problems: [(e as Error).message], notes: [], failed: true });
    } finally {
      await system.stop();
      process.removeListener('SIGINT', interrupt);
    }
  }
  const out = args.out && !args.scale.includes(',') ? args.out : join(ROOT, 'bench', 'results', `${date}-${scale}.md`);
  mkdirSync(join(out, '..'), { recursive: true });
  const text = renderReport({ date, scale, tuples: tuples.length, set, seconds, machine, results });
  writeFileSync(out, text);
  say(`\n${text}\nwritten to ${out}`);
  return results;
}

async function main() {
  const seconds = Number(args.seconds);
  const scales = args.scale.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of scales) parseScale(s);
  if (!Number.isInteger(PORT_BASE) || PORT_BASE < 1024 || PORT_BASE > 65_000) throw new Error(`--port-base takes a port from 1024 to 65000, not ${args['port-base']}`);
  // Inside the ephemeral range a server may find its port taken by some client's outgoing connection.
  const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  if (PORT_BASE + 40 >= low && PORT_BASE <= high) say(`warning: ports ${PORT_BASE}…${PORT_BASE + 40} are in the ephemeral range ${low}…${high}; a server may find its port taken`);
  const chosen = args.systems.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of chosen) if (!SYSTEMS[s]) throw new Error(`unknown system ${s}; choose from ${Object.keys(SYSTEMS).join(', ')}`);
  chosen.sort((a, b) => Number(isOurs(b)) - Number(isOurs(a)));
  const date = new Date().toISOString().slice(0, 10);
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const byScale: Array<{ scale: string; results: Result[] }> = [];
  for (const scale of scales) byScale.push({ scale, results: await runScale(scale, chosen, seconds, machine, date) });
  if (byScale.length > 1) {
    const out = args.out ?? join(ROOT, 'bench', 'results', `${date}-memory.md`);
    const text = renderMemory(date, machine, byScale);
    writeFileSync(out, text);
    say(`\n${text}\nwritten to ${out}`);
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
