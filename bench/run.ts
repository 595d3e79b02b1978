// `npm run bench [-- --tuples 100000 --loaders 1 --concurrency 16 --checks 4000]`: generates users, nested teams and documents,
// loads them through /relations/write, rebuilds the index, then prints load rate, check and list latency and write-to-visible.
// Each bulk phase also prints where the CPU went (per server process); `--profile` adds a CPU profile of the Node process.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import neo4j from 'neo4j-driver';
import { createApp, portOf } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { typeOf } from '../src/engine/ids.js';
import { indexPlan } from '../src/engine/index-plan.js';
import { Model } from '../src/engine/model.js';
import { neo4jIndexStore } from '../src/stores/neo4j/index-store.js';
import { removeCluster } from '../infra/postgres.js';
import { neo4jSizing, ROOT, startStack, STORE_BYTES_PER_TUPLE } from '../infra/stack.js';
import { fmt, say } from './report.js';
import { cpuSeconds, cpuShares } from './cpu.js';
import { startProfile, summarise } from './profile.js';
import { dataSet, DOCUMENT, type DataSet } from './data-set.js';

const { values: args } = parseArgs({ options: {
  tuples: { type: 'string', default: '100000' },
  concurrency: { type: 'string', default: '16' },
  checks: { type: 'string', default: '4000' },
  loaders: { type: 'string', default: '1' },
  profile: { type: 'boolean', default: false },
  // Its own servers on ports from this base (+1 redis, +2 mongo, +3 postgres, +4 bolt, +5 http): a run beside a dev stack.
  'port-base': { type: 'string' },
} });
const N = Number(args.tuples);
const C = Number(args.concurrency);
const CHECKS = Number(args.checks);
const LOADERS = Number(args.loaders);
/** Calls the service's admin surface with the masterkey; answers the JSON body. */
type Call = (method: string, path: string, body?: unknown) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Stack = Awaited<ReturnType<typeof startStack>>;

async function main() {
  const dataDir = join(ROOT, '.data', args['port-base'] === undefined ? 'bench' : `bench-${args['port-base']}`);
  const { stack, app, call } = await startBench(dataDir);
  try {
    await call('POST', '/authorization/resources', DOCUMENT);
    const set = dataSet(N);
    await loadAndRebuild(stack, dataDir, call, set.tuples);
    const pairs = Array.from({ length: CHECKS }, (_, i) => [`User:u${(i * 31) % set.users}`, `Document:d${(i * 97) % set.docs}`] as const);
    await checkLatencies(call, pairs);
    await bareChecksAndLists(stack, call, pairs, set.users);
    await writeToVisible(call, set.teams);
    say(`memory: rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (service process)`);
  } finally {
    await app.close();
    await stack.stop();
  }
}

/** Starts the stores (Neo4j sized for the data set) and the service on them. */
async function startBench(dataDir: string) {
  rmSync(dataDir, { recursive: true, force: true });
  removeCluster(join(dataDir, 'postgres'));
  const base = args['port-base'] === undefined ? null : Number(args['port-base']);
  const ports = base === null ? { redis: 26379, mongo: 27217, postgres: 27232, bolt: 27687, http: 27474 }
    : { redis: base + 1, mongo: base + 2, postgres: base + 3, bolt: base + 4, http: base + 5 };
  // The store starts empty: Neo4j is sized, by npm start's rule, for the store the data set will make.
  const sized = neo4jSizing(N * STORE_BYTES_PER_TUPLE, (await import('node:os')).totalmem());
  const env = { NEO4J_HEAP: `${sized.heapMb}m`, NEO4J_PAGECACHE_MB: String(sized.pagecacheMb), ...process.env };
  const stack = await startStack({ dataDir, env, log: (l) => say(`  ${l}`), ports });
  // Index settings from the environment (INDEX_CONCURRENCY, INDEX_PARTITIONS) reach the service as `npm start` passes them.
  const indexEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('INDEX_')));
  const config = loadConfig({ ...indexEnv, ...stack.urls, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0', MASTER_KEY: randomUUID(),
    ADMIN_PASSWORD: 'bench-password', ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn' });
  // The servers run in their own process groups: Ctrl-C must stop them too.
  process.once('SIGINT', () => void stack.stop().then(() => process.exit(130)));
  const app = await createApp(config, createLogger('warn'));
  const admin = portOf(await app.listen(), 'admin');
  const headers = { masterkey: config.MASTER_KEY, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`http://127.0.0.1:${admin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return { stack, app, call: call as Call };
}

/** Bulk load through /relations/write, then a hard rebuild: rates, and where the CPU went in each phase. */
async function loadAndRebuild(stack: Stack, dataDir: string, call: Call, tuples: DataSet['tuples']): Promise<void> {
  // Bulk load through the API, as a client would: /relations/write, up to 1,000 arbitrary tuples a call (as SpiceDB takes them).
  const PER_CALL = 1000;
  const calls = Math.ceil(tuples.length / PER_CALL);
  const body = (c: number) => ({ updates: tuples.slice(c * PER_CALL, (c + 1) * PER_CALL)
    .map(([subject, relation, resource]) => ({ operation: 'create', subject, relation, resource })) });
  const roots = { ...(stack.pids ?? {}), node: process.pid };
  const cores = (await import('node:os')).availableParallelism();
  // Reports a phase's CPU split across the servers and, with --profile, what the Node process spent it on.
  const measure = async (label: string) => {
    const c0 = cpuSeconds(roots);
    const t = Date.now();
    const stop = args.profile ? await startProfile() : undefined;
    return async () => {
      say(`  cpu during ${label}: ${cpuShares(c0, cpuSeconds(roots), (Date.now() - t) / 1000, cores)}`);
      if (stop) { for (const l of summarise(await stop(), join(dataDir, `${label.replace(/\W+/g, '-')}.cpuprofile`))) say(l); }
    };
  };
  let t0 = Date.now();
  let phaseDone = await measure('load');
  let next = 0;
  let loaded = 0;
  let lastSay = Date.now();
  await Promise.all(Array.from({ length: LOADERS }, async () => {
    while (next < calls) {
      const c = body(next++);
      const r = await call('POST', '/authorization/relations/write', c);
      if (typeof r.created !== 'number') throw new Error(`load failed: ${JSON.stringify(r)}`);
      loaded += c.updates.length;
      if (Date.now() - lastSay > 10_000) {
        lastSay = Date.now();
        say(`  loaded ${loaded} / ${tuples.length}`);
      }
    }
  }));
  const ackSeconds = (Date.now() - t0) / 1000;
  say(
    `bulk load via /relations/write (${LOADERS} client${LOADERS > 1 ? 's' : ''}, ${calls} calls of up to ${PER_CALL}): acknowledged in ${ackSeconds.toFixed(1)} s, ${
      (tuples.length / ackSeconds).toFixed(0)
    } tuples/s`,
  );
  const idle = async () => {
    for (;;) {
      const s = await call('GET', '/authorization/indexer/status');
      if (s.pending === 0 && !s.rebuild && !s.rebuildRequested) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  await idle();
  const visibleSeconds = (Date.now() - t0) / 1000;
  say(`  index caught up ${(visibleSeconds - ackSeconds).toFixed(1)} s after the last call: ${(tuples.length / visibleSeconds).toFixed(0)} tuples/s until visible`);
  if (process.env.AUTHZ_QUERY_TIMINGS === '1') { for (const l of (await import('../src/stores/neo4j/timings.js')).statementTimings()) say(`  ${l}`); }
  await phaseDone();
  phaseDone = await measure('rebuild');
  t0 = Date.now();
  await call('POST', '/authorization/indexer/reconstruct', {});
  await idle();
  const rebuildSeconds = (Date.now() - t0) / 1000;
  say(`hard rebuild (projection sweep + new index generation): ${rebuildSeconds.toFixed(1)} s, ${(tuples.length / rebuildSeconds).toFixed(0)} tuples/s`);
  await phaseDone();
}

/** `can` over HTTP with the decision cache cold, then warm, then fully consistent. */
async function checkLatencies(call: Call, pairs: ReadonlyArray<readonly [string, string]>): Promise<void> {
  const run = async (suffix: string) => {
    const lat: number[] = [];
    let allowed = 0;
    let next = 0;
    const start = performance.now();
    await Promise.all(Array.from({ length: C }, async () => {
      while (next < pairs.length) {
        const [s, o] = pairs[next++]!;
        const t = performance.now();
        const r = await call('GET', `/authorization/permissions/can?subject=${s}&permission=read&resource=${o}${suffix}`);
        lat.push(performance.now() - t);
        if (r.allowed === true) allowed++;
        else if (r.allowed !== false) throw new Error(`unexpected answer ${JSON.stringify(r)}`);
      }
    }));
    return { lat, allowed, rps: pairs.length / ((performance.now() - start) / 1000) };
  };
  const cold = await run('');
  say(`can over HTTP, cache cold: one index query each (c=${C}): ${fmt(cold.lat)}  ${cold.rps.toFixed(0)} checks/s  (${cold.allowed}/${CHECKS} allowed)`);
  const warm = await run('');
  say(`can over HTTP, decision cache warm (c=${C}):             ${fmt(warm.lat)}  ${warm.rps.toFixed(0)} checks/s`);
  const strict = await run('&consistency=fully_consistent');
  say(`can over HTTP, fully_consistent (c=${C}):                ${fmt(strict.lat)}  ${strict.rps.toFixed(0)} checks/s`);
}

/** The bare Neo4j index query, and the first page of list objects. */
async function bareChecksAndLists(stack: Stack, call: Call, pairs: ReadonlyArray<readonly [string, string]>, users: number): Promise<void> {
  const driver = neo4j.driver(stack.urls.NEO4J_URI, undefined, { disableLosslessIntegers: true });
  const index = neo4jIndexStore(driver);
  const model = new Model([DOCUMENT]);
  const bare: number[] = [];
  for (const [s, o] of pairs.slice(0, 2000)) {
    const t = performance.now();
    await index.check(s, o, indexPlan(model, typeOf(s), typeOf(o), 'read'));
    bare.push(performance.now() - t);
  }
  say(`bare index query (Neo4j round trip, sequential):  ${fmt(bare)}`);

  const lists: number[] = [];
  let listed = 0;
  for (let u = 0; u < 50; u++) {
    const t = performance.now();
    const r = await call('GET', `/authorization/permissions/objects?subject=User:u${u * 3 % users}&permission=read&resourceType=Document&limit=100`);
    lists.push(performance.now() - t);
    listed += r.count;
  }
  say(`list objects (first page of 100): ${fmt(lists)}  (mean ${Math.round(listed / 50)} readable documents per user)`);
  await driver.close();
}

/** Write-to-visible: the write returns once its index work is done; then one check proves it. */
async function writeToVisible(call: Call, teams: number): Promise<void> {
  const visible = async (label: string, write: (i: number) => unknown, probe: (i: number) => [string, string]) => {
    const lag: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      const w = await call('POST', '/authorization/relations', write(i));
      if (typeof w.revision !== 'number') throw new Error(`write failed: ${JSON.stringify(w)}`);
      const [s, o] = probe(i);
      const r = await call('GET', `/authorization/permissions/can?subject=${s}&permission=read&resource=${o}`);
      lag.push(performance.now() - t);
      if (!r.allowed) say(`  unexpected: ${s} cannot read ${o}`);
    }
    say(`write-to-visible, ${label}: ${fmt(lag)}`);
  };
  const leaf = teams - 1;
  await visible('member added to the root team (actor keys only)', (i) => ({ subject: `User:newcomer${i}`, relation: 'member', resource: 'Team:t0' }),
    (i) => [`User:newcomer${i}`, `Document:d${i}`]);
  await visible('new team made owner of the root team (flats of every team below)', (i) => ({ subject: `Team:top${i}`, relation: 'owner', resource: 'Team:t0' }),
    (i) => [`Team:top${i}`, `Document:d${i}`]);
  await visible('team made owner of a document (that document only)', (i) => ({ subject: `Team:t${leaf}`, relation: 'owner', resource: `Document:new${i}` }),
    (i) => [`Team:t${leaf}`, `Document:new${i}`]);
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
