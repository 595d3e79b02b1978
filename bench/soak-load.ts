// The soak's load generator, in its own process (its memory is not the service's): a closed-loop ramp to find the mixed
// load's peak, or the same mix paced open-loop at a fixed rate. Reports JSON lines on stdout.
import { parseArgs } from 'node:util';
import { Mix, type Result } from './soak-ops.js';
import type { SoakTarget } from './soak-shape.js';

const { values: a } = parseArgs({ options: {
  target: { type: 'string' },
  mode: { type: 'string', default: 'soak' },
  steps: { type: 'string', default: '4,8,16,32,64' },
  'step-seconds': { type: 'string', default: '8' },
  rate: { type: 'string', default: '100' },
  seconds: { type: 'string', default: '600' },
  every: { type: 'string', default: '10' },
} });
const emit = (m: unknown) => process.stdout.write(`${JSON.stringify(m)}\n`);

/** Calls, latencies and outcomes per route since it was made. */
class Tally {
  readonly routes = new Map<string, { lat: number[]; statuses: Record<string, number> }>();
  add(r: Result, ms: number): void {
    let e = this.routes.get(r.route);
    if (!e) this.routes.set(r.route, e = { lat: [], statuses: {} });
    e.lat.push(ms);
    e.statuses[r.status] = (e.statuses[r.status] ?? 0) + 1;
  }
  get calls(): number {
    let n = 0;
    for (const e of this.routes.values()) n += e.lat.length;
    return n;
  }
  get errors(): number {
    let n = 0;
    for (const e of this.routes.values()) n += e.lat.length - (e.statuses.ok ?? 0);
    return n;
  }
  summary() {
    const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
    return Object.fromEntries([...this.routes].map(([route, e]) => {
      const s = [...e.lat].sort((x, y) => x - y);
      return [route, { n: s.length, p50: q(s, 0.5), p99: q(s, 0.99), statuses: e.statuses }];
    }));
  }
}

const mix = new Mix(JSON.parse(a.target!) as SoakTarget);
await mix.start();
const every = Number(a.every) * 1000;

async function timed(op: () => Promise<Result>, tallies: Tally[]): Promise<void> {
  const t = performance.now();
  let r: Result;
  try {
    r = await op();
  } catch (e) {
    r = { route: 'load generator', status: (e as Error).message };
  }
  const ms = performance.now() - t;
  for (const x of tallies) x.add(r, ms);
}

async function ramp(): Promise<void> {
  let best = { rate: 0, concurrency: 0 };
  // A first step not counted: Neo4j plans its queries and V8 compiles on first use, which made the first step crawl.
  const steps = a.steps!.split(',').map(Number);
  for (const [k, c] of [steps[0]!, ...steps].entries()) {
    const tally = new Tally();
    const until = Date.now() + Number(a['step-seconds']) * 1000;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: c }, async () => {
      while (Date.now() < until) await timed(mix.pick(), [tally]);
    }));
    const rate = tally.calls / ((performance.now() - t0) / 1000);
    if (k === 0) {
      emit({ type: 'warm-up', concurrency: c, rate });
      continue;
    }
    emit({ type: 'step', concurrency: c, rate, errors: tally.errors, routes: tally.summary() });
    if (rate > best.rate) best = { rate, concurrency: c };
  }
  emit({ type: 'peak', ...best });
}

/** Open loop: operations start on schedule whether or not earlier ones have answered, up to MAX_IN_FLIGHT. */
const MAX_IN_FLIGHT = 1000;

async function soak(): Promise<void> {
  const rate = Number(a.rate);
  const total = new Tally();
  let interval = new Tally();
  let inFlight = 0;
  let issued = 0;
  /** Operations not started because MAX_IN_FLIGHT were waiting: the service fell behind the rate. */
  let behind = 0;
  const start = Date.now();
  const end = start + Number(a.seconds) * 1000;
  let nextReport = start + every;
  emit({ type: 'started' });
  while (Date.now() < end) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate) - issued - behind;
    for (let k = 0; k < due; k++) {
      if (inFlight >= MAX_IN_FLIGHT) {
        behind++;
        continue;
      }
      issued++;
      inFlight++;
      void timed(mix.pick(), [total, interval]).finally(() => {
        inFlight--;
      });
    }
    if (Date.now() >= nextReport) {
      emit({ type: 'interval', t: (nextReport - start) / 1000, rate: interval.calls / (every / 1000), errors: interval.errors, inFlight, behind, decisions: mix.sockets.decisions,
        closes: mix.sockets.closes, routes: interval.summary() });
      interval = new Tally();
      nextReport += every;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const drainUntil = Date.now() + 30_000;
  while (inFlight > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 50));
  emit({ type: 'done', seconds: (Date.now() - start) / 1000, calls: total.calls, errors: total.errors, behind, unfinished: inFlight, decisions: mix.sockets.decisions,
    closes: mix.sockets.closes, routes: total.summary() });
}

await (a.mode === 'ramp' ? ramp() : soak());
mix.stop();
process.exit(0);
