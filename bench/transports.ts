// `npm run bench:transports`: gRPC Can against the REST fast path (cached and uncached checks, one load generator process
// each), and the decision watch's flip latency with 10,000 live subscriptions. Prints figures; asserts nothing.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { WebSocket } from 'ws';
import { portOf } from '../src/app.js';
import { ROOT } from '../infra/stack.js';
import { pct, say } from './report.js';
import { benchService } from './service.js';

const { values: args } = parseArgs({ options: {
  seconds: { type: 'string', default: '8' },
  concurrency: { type: 'string', default: '32' },
  subscriptions: { type: 'string', default: '10000' },
  flips: { type: 'string', default: '200' },
  /** Also measure with native load generators (wrk for REST, ghz for gRPC), which cost the shared cores less than Node's clients. */
  native: { type: 'boolean', default: false },
} });

const GHZ = join(ROOT, '.cache', 'tools', 'ghz');
/** ghz from the Go module proxy and wrk from Debian, installed once. */
function nativeTools(): void {
  if (!existsSync(GHZ)) execFileSync('go', ['install', 'github.com/bojand/ghz/cmd/ghz@v0.120.0'], { env: { ...process.env, GOBIN: dirname(GHZ) }, stdio: 'inherit' });
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') execFileSync('sh', ['-c', 'apt-get install -y wrk || (apt-get update && apt-get install -y wrk)'], { stdio: 'inherit' });
  }
}

type Call = (base: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Listeners = Parameters<typeof portOf>[0];
/** What the phases share: the service's listeners and surfaces, its config, a call, and the checks every load sends. */
interface Bench {
  listeners: Listeners;
  admin: string;
  client: string;
  config: { MASTER_KEY: string; SOCKET_MAX_SUBSCRIPTIONS: number };
  call: Call;
  checks: string[][];
}

async function main() {
  const svc = await benchService('bench-transports', { redis: 26479, mongo: 27317, postgres: 27332, bolt: 27787, http: 27574 });
  const { config, listeners } = svc;
  const admin = `http://127.0.0.1:${portOf(listeners, 'admin')}`;
  const client = `http://127.0.0.1:${portOf(listeners, 'client')}`;
  const call = async (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = { masterkey: config.MASTER_KEY }) => {
    const r = await fetch(base + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    await call(admin, 'POST', '/authorization/resources', { name: 'Doc', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
      permissions: { read: ['reader', 'owner', 'owner->read'] } });
    // 2,000 checks over 200 teams, 2,000 users and 2,000 documents.
    for (let t = 0; t < 200; t++) {
      await call(admin, 'POST', '/authorization/relations/many', { subject: `Team:t${t}`, relation: 'owner', resources: Array.from({ length: 10 }, (_, i) =>
        `Doc:d${t * 10 + i}`) });
    }
    for (let u = 0; u < 2000; u += 1) await call(admin, 'POST', '/authorization/relations', { subject: `User:u${u}`, relation: 'member', resource: `Team:t${u % 200}` });
    const checks = Array.from({ length: 2000 }, (_, i) => [`User:u${i}`, 'read', `Doc:d${(i * 7) % 2000}`]);
    const b: Bench = { listeners, admin, client, config, call, checks };
    await loadGenerators(b);
    if (args.native) await nativeLoadGenerators(b);
    await decisionWatch(b);
  } finally {
    await svc.stop();
  }
}

/** Checks at the chosen concurrency from one load generator process: REST and gRPC, cached and uncached. */
async function loadGenerators({ listeners, admin, config, checks }: Bench): Promise<void> {
  const load = async (kind: string, consistency = '') => {
    const target = kind === 'grpc' ? `127.0.0.1:${portOf(listeners, 'grpc')}` : admin;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'transports-load.ts'), `--kind=${kind}`, `--target=${target}`,
      `--masterkey=${config.MASTER_KEY}`, `--concurrency=${args.concurrency}`, `--seconds=${args.seconds}`, `--checks=${JSON.stringify(checks)}`, `--consistency=${consistency}`], {
      cwd: ROOT,
      maxBuffer: 1 << 20,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as { rate: number; p50: number; p99: number; errors: number; cpu: number; server?: number };
  };
  say(`\nChecks at concurrency ${args.concurrency}, ${args.seconds} s each, one load generator process (same 2 cores):`);
  await load('rest');
  await load('grpc'); // warm-up of both paths and the caches
  const rows: Array<[string, Awaited<ReturnType<typeof load>>]> = [];
  for (const [label, kind, consistency] of [['REST fast path, cached', 'rest', ''], ['gRPC Can, cached', 'grpc', ''], ['REST fast path, uncached (fully_consistent)', 'rest',
    'fully_consistent'], ['gRPC Can, uncached (fully_consistent)', 'grpc', 'fully_consistent']] as const) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await load(kind, consistency);
    const used = process.cpuUsage(cpu0);
    r.server = (used.user + used.system) / 1e3 / (performance.now() - t0);
    rows.push([label, r]);
    say(`  ${label.padEnd(46)} ${r.rate.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}  `
      + `CPU cores: service ${r.server.toFixed(2)}, load generator ${r.cpu.toFixed(2)}`);
  }
  say(
    `  gRPC ÷ REST: cached ${(rows[1]![1].rate / rows[0]![1].rate).toFixed(2)}×, uncached ${
      (rows[3]![1].rate / rows[2]![1].rate).toFixed(2)
    }× (goals: ≥ 1.5× cached, ≥ 1× uncached)`,
  );
}

/** The same cached checks with native load generators (wrk and ghz). */
async function nativeLoadGenerators({ listeners, admin, config, checks }: Bench): Promise<void> {
  nativeTools();
  const dir = join(ROOT, '.cache', 'bench-transports');
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'paths.lua'), `paths = {${checks.map(([s, p, o]) => `"/authorization/permissions/can?subject=${s}&permission=${p}&resource=${o}"`).join(',')}}
i = 0
request = function() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end`);
  writeFileSync(join(dir, 'checks.json'), JSON.stringify(checks.map(([subject, permission, resource]) => ({ subject, permission, resource }))));
  say(`\nThe same cached checks with native load generators (wrk: 1 thread, ${args.concurrency} connections; ghz: 1 connection, ${args.concurrency} concurrent calls):`);
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  let c0 = cpu();
  let t0 = performance.now();
  // Asynchronous: the service runs in this process and must answer meanwhile.
  const run = promisify(execFile);
  const wrk = (await run('wrk', ['-t1', `-c${args.concurrency}`, `-d${args.seconds}s`, '--latency', '-H', `masterkey: ${config.MASTER_KEY}`, '-s', join(dir, 'paths.lua'), admin], {
    encoding: 'utf8',
  })).stdout;
  const wrkCpu = (cpu() - c0) / 1e3 / (performance.now() - t0);
  const wrkRate = Number(/Requests\/sec:\s+([\d.]+)/.exec(wrk)?.[1] ?? 0);
  say(
    `  REST fast path (wrk)   ${wrkRate.toFixed(0).padStart(7)}/s  p50 ${/50%\s+(\S+)/.exec(wrk)?.[1]}  p99 ${/99%\s+(\S+)/.exec(wrk)?.[1]}  service CPU ${
      wrkCpu.toFixed(2)
    } cores`,
  );
  c0 = cpu();
  t0 = performance.now();
  const ghz = JSON.parse(
    (await run(GHZ, ['--insecure', '--proto', join(ROOT, 'proto', 'authzgraph', 'v1', 'authzgraph.proto'), '--call', 'authzgraph.v1.AuthzGraph.Can', '-m',
      JSON.stringify({ masterkey: config.MASTER_KEY }), '-D', join(dir, 'checks.json'), '-c', args.concurrency!, '-z', `${args.seconds}s`, '--connections', '1', '-O', 'json',
      `127.0.0.1:${portOf(listeners, 'grpc')}`], { encoding: 'utf8', maxBuffer: 64 << 20 })).stdout,
  ) as { rps: number; latencyDistribution: Array<{ percentage: number; latency: number }>; statusCodeDistribution: Record<string, number> };
  const ghzCpu = (cpu() - c0) / 1e3 / (performance.now() - t0);
  const lat = (p: number) => (((ghz.latencyDistribution ?? []).find((d) => d.percentage === p)?.latency ?? 0) / 1e6).toFixed(2);
  say(
    `  gRPC Can (ghz)         ${ghz.rps.toFixed(0).padStart(7)}/s  p50 ${lat(50)}ms  p99 ${lat(99)}ms  service CPU ${ghzCpu.toFixed(2)} cores  statuses ${
      JSON.stringify(ghz.statusCodeDistribution)
    }`,
  );
  say(`  gRPC ÷ REST with native load generators: ${(ghz.rps / wrkRate).toFixed(2)}×`);
}

/** Decision watch: sockets of 1,000 subscriptions each, flips one at a time, then a definition change. */
async function decisionWatch({ listeners, admin, client, config, call }: Bench): Promise<void> {
  // change asks every subscription again (measured below), which is not what a flip costs.
  await call(admin, 'POST', '/authorization/resources', { name: 'Watched', relations: { reader: ['User'] }, permissions: { read: ['reader'] } });
  const perSocket = config.SOCKET_MAX_SUBSCRIPTIONS;
  const sockets = Math.ceil(Number(args.subscriptions) / perSocket);
  const users: Array<{ id: string; ws: WebSocket; waiting: Map<string, (t: number) => void> }> = [];
  for (let s = 0; s < sockets; s++) {
    const email = `watch${s}@bench.example`;
    await call(client, 'POST', '/authentication/local/new', { email, password: 'bench password' }, {});
    const login = await call(client, 'POST', '/authentication/local', { email, password: 'bench password' }, {});
    const ws = new WebSocket(`ws://127.0.0.1:${portOf(listeners, 'socket')}/realtime`, { headers: { authorization: `Bearer ${login.accessToken}` } });
    await new Promise((r) => ws.once('open', r));
    const user = { id: login.userId as string, ws, waiting: new Map<string, (t: number) => void>() };
    let subscribed = 0;
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.type === 'subscribed' && (subscribed += m.items.length) >= perSocket) resolve();
        if (m.type === 'decision') user.waiting.get(m.resource)?.(performance.now());
      })
    );
    for (let k = 0; k < perSocket; k += 100) {
      ws.send(
        JSON.stringify({ type: 'subscribe', topic: 'decisions', id: `s${k}`,
          items: Array.from({ length: 100 }, (_, j) => ({ action: 'read', resource: `Watched:w${s}-${k + j}` })) }),
      );
    }
    await done;
    users.push(user);
  }
  say(`\nDecision watch: ${sockets * perSocket} live subscriptions on ${sockets} sockets; ${args.flips} grants, one at a time:`);
  const lags: number[] = [];
  for (let f = 0; f < Number(args.flips); f++) {
    const u = users[f % users.length]!;
    const resource = `Watched:w${f % users.length}-${Math.floor(f / users.length) % perSocket}`;
    const arrived = new Promise<number>((resolve) => u.waiting.set(resource, resolve));
    await call(admin, 'POST', '/authorization/relations', { subject: `User:${u.id}`, relation: 'reader', resource });
    const returned = performance.now();
    const at = await Promise.race([arrived, new Promise<number>((r) => setTimeout(() => r(Number.NaN), 5000))]);
    if (!Number.isNaN(at)) lags.push(Math.max(0, at - returned));
  }
  say(
    `  flip delivered after the write returned: p50 ${pct(lags, 0.5).toFixed(1)} ms  p99 ${
      pct(lags, 0.99).toFixed(1)
    } ms  (${lags.length} of ${args.flips} seen; goal p99 ≤ 100 ms)`,
  );
  // A definition change: every subscription of the process is asked again.
  const t0 = performance.now();
  const u0 = users[0]!;
  const resource = `Watched:w0-${perSocket - 1}`;
  const arrived = new Promise<number>((resolve) => u0.waiting.set(resource, resolve));
  await call(admin, 'PATCH', '/authorization/resources/Watched', { relations: { reader: ['User'] }, permissions: { read: ['reader'] }, version: 1 });
  await call(admin, 'POST', '/authorization/relations', { subject: `User:${u0.id}`, relation: 'reader', resource });
  const seen = await Promise.race([arrived, new Promise<number>((r) => setTimeout(() => r(Number.NaN), 30_000))]);
  say(`  a definition change, then a grant: the flip arrived ${(seen - t0).toFixed(0)} ms after the change was sent (every subscription asked again)`);
  for (const u of users) u.ws.close();
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
