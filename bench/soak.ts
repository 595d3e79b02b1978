// `npm run soak -- --minutes 10`: the service on a fresh stack, a mixed load ramped to find its peak, then held at 70% of
// it while every process's memory is sampled every 10 s; prints the curve, then writes bench/results/2026-11-24-soak.md.
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { Redis } from 'ioredis';
import { ROOT } from '../infra/stack.js';
import { cpuSeconds, cpuShares } from './cpu.js';
import { say } from './report.js';
import { benchService } from './service.js';
import { jvmHeap, liveHeap, redisKeys, sample, type Sample } from './soak-memory.js';
import { LIVE_FLOOR, WEIGHTS } from './soak-ops.js';
import { SHAPE, seed, type SoakTarget } from './soak-shape.js';
import { curveTable, drifts, driftTable, errorsByRoute, progressLine, routeTable, slowest, type RouteTotals } from './soak-report.js';

const { values: args } = parseArgs({ options: {
  minutes: { type: 'string', default: '10' },
  /** Samples before this are warm-up: caches fill, the JVM sizes its heap; drift is measured after it. */
  warmup: { type: 'string', default: '3' },
  share: { type: 'string', default: '0.7' },
  steps: { type: 'string', default: '4,8,16,32,64,128' },
  'step-seconds': { type: 'string', default: '8' },
  /** Writes a heap snapshot of the service at the warm-up's end and at the end (each stalls it for seconds). */
  'heap-snapshots': { type: 'boolean', default: false },
  out: { type: 'string', default: join(ROOT, 'bench', 'results', '2026-11-24-soak.md') },
} });
const MINUTES = Number(args.minutes);
const WARMUP_S = Math.min(Number(args.warmup), MINUTES / 3) * 60;
const GOAL = 10;

/**
 * Rate limits stay on (their Redis counters are part of what is soaked) but far above the load: every call comes from
 * 127.0.0.1, so the defaults (100/s per route and IP, 30 logins/min per account, 20 registrations/min) would refuse it.
 */
const RATE_LIMITS = {
  enabled: true,
  default: { windowMs: 1000, max: 100_000 },
  routes: { 'POST /authentication/local': { windowMs: 60_000, max: 100_000 }, 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } },
};
const PORTS = { redis: 26679, mongo: 27517, postgres: 27532, bolt: 27987, http: 27874 };

type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const jvm = (h: ReturnType<typeof jvmHeap>, k: 'committed' | 'used' | 'metaspace') => (h ? h[k].toFixed(0) : '?');

/** Runs the load generator; `onLine` sees each JSON line it prints. */
function loadGenerator(target: SoakTarget, flags: string[], onLine: (m: Line) => void) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'soak-load.ts'), `--target=${JSON.stringify(target)}`, ...flags], { cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout! }).on('line', (l) => {
    try {
      onLine(JSON.parse(l) as Line);
    } catch {
      say(`  load generator: ${l}`);
    }
  });
  const done = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  return { child, done };
}

type Svc = Awaited<ReturnType<typeof benchService>>;
/** What the soak measured: memory samples, Redis keys and heaps at the warm-up's end and at the end, the totals and the CPU. */
interface Soaked {
  samples: Sample[];
  keys: Record<string, Record<string, number>>;
  totals: Line;
  cpu: string;
  inside: Record<string, { live: number; jvm?: ReturnType<typeof jvmHeap> }>;
}

/** The closed-loop ramp: the peak rate, and the rate the soak runs at. */
async function rampUp(target: SoakTarget): Promise<{ steps: Line[]; peak: { rate: number; concurrency: number }; rate: number }> {
  say(`\nRamp (closed loop, ${args['step-seconds']} s per step, the whole mix):`);
  const steps: Line[] = [];
  let peak = { rate: 0, concurrency: 0 };
  const ramp = loadGenerator(target, ['--mode=ramp', `--steps=${args.steps}`, `--step-seconds=${args['step-seconds']}`], (m) => {
    if (m.type === 'warm-up') say(`  warm-up step (not counted), concurrency ${m.concurrency}: ${m.rate.toFixed(0)} calls/s`);
    if (m.type === 'step') {
      steps.push(m);
      say(`  concurrency ${String(m.concurrency).padStart(3)}: ${m.rate.toFixed(0).padStart(5)} calls/s  errors ${m.errors}  slowest p99: ${slowest(m.routes as RouteTotals)}`
        + `${m.errors ? `\n      errors: ${errorsByRoute(m.routes)}` : ''}`);
    }
    if (m.type === 'peak') peak = { rate: m.rate, concurrency: m.concurrency };
  });
  if (await ramp.done !== 0 || !peak.rate) throw new Error('the ramp failed');
  const rate = Math.round(peak.rate * Number(args.share));
  say(`  peak ${peak.rate.toFixed(0)} calls/s at concurrency ${peak.concurrency}; the soak runs at ${rate}/s (${Number(args.share) * 100}%)`);
  return { steps, peak, rate };
}

/** The open-loop soak at `rate`, sampling memory every 10 s. */
async function soakAt(svc: Svc, redis: Redis, target: SoakTarget, rate: number, dataDir: string): Promise<Soaked> {
  say(`\nSoak: ${MINUTES} min at ${rate}/s; memory every 10 s (MiB; warm-up until ${WARMUP_S} s):`);
  const samples: Sample[] = [];
  const keys: Record<string, Record<string, number>> = {};
  let totals: Line = {};
  let pids: Record<string, number> = {};
  let cpu0: Record<string, number> = {};
  let cpu1: Record<string, number> = {};
  /** What the memory is made of, at the warm-up's end and at the end. */
  const inside: Record<string, { live: number; jvm?: ReturnType<typeof jvmHeap> }> = {};
  let warmedUp = false;
  let pending = Promise.resolve();
  const soak = loadGenerator(target, [`--rate=${rate}`, `--seconds=${MINUTES * 60}`, '--every=10'], (m) => {
    // Samples are taken in order: a slow Redis INFO must not let two interleave.
    pending = pending.then(async () => {
      if (m.type === 'started') {
        pids = { service: process.pid, ...svc.pids, 'load generator': soak.child.pid! };
        cpu0 = cpuSeconds(pids);
        const s = await sample(0, pids, redis);
        s.load = loadavg()[0];
        samples.push(s);
        say(progressLine(s, ''));
      } else if (m.type === 'interval') {
        const s = await sample(m.t, pids, redis);
        Object.assign(s, { rate: m.rate, errors: m.errors, load: loadavg()[0] });
        samples.push(s);
        const extra = `${m.behind ? ` behind ${m.behind}` : ''} subs→decisions ${m.decisions}`;
        say(progressLine(s, extra) + (m.errors ? `\n      errors: ${errorsByRoute(m.routes)}` : ''));
        if (!warmedUp && m.t >= WARMUP_S) {
          warmedUp = true;
          keys.warm = await redisKeys(redis);
          inside.warm = { live: liveHeap(), jvm: jvmHeap(svc.pids.neo4j!) };
          if (args['heap-snapshots']) say(`  heap snapshot: ${writeHeapSnapshot(join(dataDir, 'warm.heapsnapshot'))}`);
        }
      } else if (m.type === 'done') {
        // Before the load generator exits: after, its CPU time moves into this process's children total.
        cpu1 = cpuSeconds(pids);
        totals = m;
      }
    });
  });
  if (await soak.done !== 0) throw new Error('the load generator failed');
  await pending;
  const cpu = cpuShares(cpu0, cpu1, totals.seconds, availableParallelism());
  keys.end = await redisKeys(redis);
  inside.end = { live: liveHeap(), jvm: jvmHeap(svc.pids.neo4j!) };
  if (args['heap-snapshots']) say(`  heap snapshot: ${writeHeapSnapshot(join(dataDir, 'end.heapsnapshot'))}`);
  return { samples, keys, totals, cpu, inside };
}

/** Prints the summary and writes the report file. */
function report(steps: Line[], peak: { rate: number; concurrency: number }, rate: number, { samples, keys, totals, cpu, inside }: Soaked): void {
  const rows = drifts(samples, WARMUP_S, GOAL);
  const routes = totals.routes as RouteTotals;
  const fivexx = Object.values(routes).reduce((a, r) => a + Object.entries(r.statuses).filter(([k]) => /^5\d\d/.test(k)).reduce((b, [, v]) => b + v, 0), 0);
  const achieved = totals.calls / totals.seconds;
  const summary = [
    `peak ${peak.rate.toFixed(0)} calls/s (concurrency ${peak.concurrency}); soak target ${rate}/s, achieved ${achieved.toFixed(0)}/s over ${(totals.seconds / 60).toFixed(1)} min`,
    `${totals.calls} calls, ${totals.errors} errors (${fivexx} 5xx), ${totals.behind} not started (service behind), ${totals.unfinished} unfinished at the end`,
    `decisions pushed to the sockets: ${totals.decisions}; closes by the server: ${JSON.stringify(totals.closes)}`,
    `CPU over the soak: ${cpu}`,
    `service live heap after a full GC, warm-up end → end: ${inside.warm?.live.toFixed(1)} → ${inside.end?.live.toFixed(1)} MiB`,
    `Neo4j JVM heap (jcmd GC.heap_info), warm-up end → end: committed ${jvm(inside.warm?.jvm, 'committed')} → ${jvm(inside.end?.jvm, 'committed')} MiB, `
    + `used ${jvm(inside.warm?.jvm, 'used')} → ${jvm(inside.end?.jvm, 'used')} MiB, metaspace ${jvm(inside.warm?.jvm, 'metaspace')} → ${jvm(inside.end?.jvm, 'metaspace')} MiB`,
    `Redis keys by kind, warm-up end → end: ${Object.keys({ ...keys.warm, ...keys.end }).map((k) => `${k} ${keys.warm?.[k] ?? 0} → ${keys.end?.[k] ?? 0}`).join(', ')}`,
  ];
  say('\nMemory after the warm-up (start and end: medians of the first and last three samples):');
  for (const l of driftTable(rows)) say(`  ${l}`);
  say('');
  for (const l of routeTable(routes)) say(`  ${l}`);
  for (const l of summary) say(`  ${l}`);

  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const notFlat = rows.filter((d) => !d.flat && !d.name.startsWith('load generator'));
  writeFileSync(args.out!, [
    `# Soak, ${new Date().toISOString().slice(0, 10)} (npm run soak -- --minutes ${MINUTES})`,
    '',
    `Commit ${commit}. One run on this machine's ${availableParallelism()} cores, shared by the service, its servers, the load generator`
    + ' and other agents running their tests at the same time (the load average column shows how busy the machine was).',
    '',
    '## Set-up',
    '',
    `- The service in the bench process (as the other benches run it, \`bench/service.ts\`), on a fresh stack (Redis, FerretDB v1 on PostgreSQL, Neo4j with a 1 GiB heap) under \`.data/bench-soak\`; the load generator in its own process (\`bench/soak-load.ts\`).`,
    `- Rate limits **on but raised** for the soak (all calls come from 127.0.0.1): \`ROUTER_RATE_LIMITS=${
      JSON.stringify(RATE_LIMITS)
    }\`; renewals and every other route use the raised default.`,
    `- Data: ${SHAPE.docs} documents owned by ${SHAPE.teams} teams, ${SHAPE.users} users in teams, ${SHAPE.clients} client users; checks drawn from ${SHAPE.checks} distinct pairs. Writes and deletes balance (deletes stop at ${LIVE_FLOOR} live written tuples), so the data set stays the same size; /relations/many creates new documents, as applications do.`,
    `- Mix (calls per 100, \`bench/soak-ops.ts\`): ${
      Object.entries(WEIGHTS).map(([k, v]) => `${k} ${v}`).join(' · ')
    }. Client GraphQL asks \`authorizationCheck\` and \`me\`, admin GraphQL \`get_authorization_permissions_can\`; /relations/many writes 5 tuples; a socket subscribes 5 decisions at a time and keeps at most 10 subscriptions; one socket per client user, some closed and reopened.`,
    `- Peak: closed loop at concurrency ${args.steps}, ${args['step-seconds']} s each; the soak then paces the same mix open-loop at ${
      Number(args.share) * 100
    }% of the best step. Memory sampled every 10 s; warm-up ${WARMUP_S} s; start and end are medians of the first and last three samples after it.`,
    '',
    '## Summary',
    '',
    ...summary.map((l) => `- ${l}`),
    `- Goals (reported, not asserted): every process and Redis flat within ±${GOAL}% after warm-up: ${
      notFlat.length ? `**missed** by ${notFlat.map((d) => `${d.name} (${d.drift >= 0 ? '+' : ''}${d.drift.toFixed(1)}%)`).join(', ')}` : 'met'
    }; 0 errors: ${totals.errors === 0 ? 'met' : `**missed** (${totals.errors})`}.`,
    '',
    '## Ramp',
    '',
    'After one uncounted step at the first concurrency (first queries plan and compile).',
    '',
    '| concurrency | calls/s | errors | slowest p99 |',
    '|---:|---:|---:|---|',
    ...steps.map((s) => `| ${s.concurrency} | ${s.rate.toFixed(0)} | ${s.errors} | ${slowest(s.routes as RouteTotals)} |`),
    '',
    '## Memory after warm-up',
    '',
    ...driftTable(rows),
    '',
    '## Calls and errors by route',
    '',
    ...routeTable(routes),
    '',
    '## Curve (MiB; every 10 s)',
    '',
    ...curveTable(samples),
    '',
  ].join('\n'));
  say(`\nwrote ${args.out}`);
}

async function main() {
  const svc = await benchService('bench-soak', PORTS, { ROUTER_RATE_LIMITS: JSON.stringify(RATE_LIMITS) });
  const redis = new Redis(svc.config.REDIS_URL);
  const dataDir = join(ROOT, '.data', 'bench-soak');
  try {
    const admin = `http://127.0.0.1:${svc.port('admin')}`;
    const client = `http://127.0.0.1:${svc.port('client')}`;
    const users = await seed(admin, client, svc.config.MASTER_KEY, say);
    const target: SoakTarget = { admin, client, socket: `ws://127.0.0.1:${svc.port('socket')}/realtime`, grpc: `127.0.0.1:${svc.port('grpc')}`, masterkey: svc.config.MASTER_KEY,
      users };

    const { steps, peak, rate } = await rampUp(target);
    const soaked = await soakAt(svc, redis, target, rate, dataDir);
    report(steps, peak, rate, soaked);
  } finally {
    redis.disconnect();
    await svc.stop();
  }
}

main().then(() => process.exit(0), (e: Error) => {
  console.error(e);
  process.exit(1);
});
