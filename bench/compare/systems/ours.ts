// This service under test: its servers from the project's own scripts, the compiled service in its own process (or two, on one stack).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { removeCluster } from '../../../infra/postgres.js';
import { launch, neo4jSizing, ROOT, startStack, STORE_BYTES_PER_TUPLE, stopChild, waitForPort, type StartedStack } from '../../../infra/stack.js';
import { summarise } from '../../profile.js';
import type { Tuple } from '../dataset.js';
import { assertFree, call, pool, sleep, type Place, type System } from '../system.js';

/** dist/ is built by the first of our systems a run starts, and the others run the same build. */
let built = false;

/** What Neo4j's store takes a tuple on disk, measured (the index rows included): the data set's store, before it is loaded. */

/**
 * With `profile`, the service is restarted under `--cpu-prof` after loading, so the profile covers the read phases only.
 * With `processes` 2, two service processes share the one stack, each on its own ports; the load generator and the
 * loader go round robin between them.
 */
export function ours(tuples: number, log: (l: string) => void, profile: boolean, place: Place, processes = 1): System {
  const PORTS = { redis: place.base + 1, mongo: place.base + 2, postgres: place.base + 3, bolt: place.base + 4, http: place.base + 5 };
  /** Process i listens on admin, client, gRPC and socket ports from here. */
  const admin = (i: number) => place.base + 10 + 4 * i;
  const dataDir = join(place.dir, 'ours');
  const key = randomUUID();
  const headers = { masterkey: key };
  const bases = Array.from({ length: processes }, (_, i) => `http://127.0.0.1:${admin(i)}`);
  const base = bases[0]!;
  let stack: StartedStack | undefined;
  const services: ChildProcess[] = [];
  const sha = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const q = (s: string) => encodeURIComponent(s);
  const profiles = join(dataDir, 'profiles');
  let env: Record<string, string> = {};
  let sizing = '';
  const startServices = async (vars: Record<string, string>, flags: string[] = []) => {
    env = vars;
    for (let i = 0; i < processes; i++) {
      const port = admin(i);
      const own = { ...vars, ADMIN_PORT: String(port), CLIENT_PORT: String(port + 1), GRPC_PORT: String(port + 2), SOCKET_PORT: String(port + 3) };
      const child = launch('service', process.execPath, [...flags, 'dist/src/main.js'], join(dataDir, 'logs', `service-${i + 1}.log`), own);
      services[i] = child;
      await waitForPort(port, child, `service ${i + 1}`, 60_000);
    }
  };
  return {
    label: processes === 1 ? 'ours (Neo4j index, compiled JS)' : `ours, ${processes} service processes (round robin)`,
    version: `${pkg.version} (${sha || 'unknown commit'})`,
    async start() {
      await assertFree([...Object.values(PORTS), ...Array.from({ length: processes * 4 }, (_, i) => admin(0) + i)]);
      if (!built) {
        log('building dist/ (npm run build; once a bench run)');
        if (spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
        built = true;
      }
      rmSync(dataDir, { recursive: true, force: true });
      removeCluster(join(dataDir, 'postgres'));
      // The store is empty now: Neo4j is sized, by the rule `npm start` applies to the store it finds, for the one it will hold.
      const expected = tuples * STORE_BYTES_PER_TUPLE;
      const { heapMb, pagecacheMb } = neo4jSizing(expected, totalmem());
      sizing = `Neo4j heap ${heapMb} MiB and page cache ${pagecacheMb} MiB, by npm start's rule for the store the data set makes `
        + `(${(expected / 2 ** 20).toFixed(0)} MiB at ${STORE_BYTES_PER_TUPLE / 1024} KiB a tuple)`;
      stack = await startStack({ dataDir, ports: PORTS, env: { ...process.env, NEO4J_HEAP: `${heapMb}m`, NEO4J_PAGECACHE_MB: String(pagecacheMb) }, log: (l) => log(`  ${l}`) });
      const vars = { ...stack.urls, MASTER_KEY: key, ADMIN_PASSWORD: randomUUID(), ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(),
        LOG_LEVEL: 'warn' };
      await startServices(vars);
      await call(`${base}/authorization/resources`, { headers,
        body: { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] }, permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'] } } });
    },
    load: (all, progress) => loadTuples(bases, headers, all, progress),
    async settled() {
      for (;;) {
        const s = await call(`${base}/authorization/indexer/status`, { headers });
        if (s.pending === 0 && !s.rebuild && !s.rebuildRequested) return;
        await sleep(200);
      }
    },
    async beforeReads() {
      if (!profile || !services.length) return;
      for (const s of services) await stopChild(s);
      log(`restarting the service under the CPU profiler (${profiles})`);
      await startServices(env, ['--cpu-prof', `--cpu-prof-dir=${profiles}`]);
    },
    target: () => ({ base, ...(processes > 1 ? { bases } : {}), headers, check: 'allowed', list: 'ours-list' }),
    check: (s, p, o) => ({ method: 'GET', path: `/authorization/permissions/can?subject=${q(s)}&permission=${p}&resource=${q(o)}` }),
    list: (s, p, type) => ({ method: 'GET', path: `/authorization/permissions/objects?subject=${q(s)}&permission=${p}&resourceType=${type}` }),
    async write([subject, relation, resource]) {
      await call(`${base}/authorization/relations`, { headers, body: { subject, relation, resource } });
    },
    cacheCounts: () => cacheHits(bases, headers),
    notes: () => [`${sizing}; ${processes === 1 ? 'one service process' : `${processes} service processes on the one stack, each request to the next`}`],
    pids: () => ({ ...(stack?.pids ?? {}), ...Object.fromEntries(services.flatMap((s, i) => (s.pid ? [[i ? `service ${i + 1}` : 'service', s.pid]] : []))) }),
    async stop() {
      for (const s of services) await stopChild(s);
      await stack?.stop();
      if (profile) summariseProfiles(profiles, log);
    },
  };
}

/** Loads the tuples through /relations/write, 1,000 a call, four calls at a time, round robin over the processes. */
async function loadTuples(bases: string[], headers: Record<string, string>, all: Tuple[], progress: (done: number) => void): Promise<void> {
  // /relations/write takes up to 1,000 arbitrary tuples a call, as SpiceDB's WriteRelationships (OpenFGA's Write: 100).
  const batches: Array<typeof all> = [];
  for (let i = 0; i < all.length; i += 1000) batches.push(all.slice(i, i + 1000));
  let done = 0;
  let turn = 0;
  await pool(batches, 4, async (b) => {
    await call(`${bases[turn++ % bases.length]}/authorization/relations/write`, { headers,
      body: { updates: b.map(([subject, relation, resource]) => ({ operation: 'create', subject, relation, resource })) } });
    progress(done += b.length);
  });
}

/** Decisions answered and those answered from the decision cache, summed over the processes' metrics. */
async function cacheHits(bases: string[], headers: Record<string, string>): Promise<{ hits: number; total: number }> {
  let hits = 0;
  let total = 0;
  for (const b of bases) {
    const text = await (await fetch(`${b}/metrics`, { headers })).text();
    for (const m of text.matchAll(/^authz_check_decisions_total\{([^}]*)\} (\d+)/gm)) {
      total += Number(m[2]);
      if (m[1]!.includes('cached="true"')) hits += Number(m[2]);
    }
  }
  return { hits, total };
}

/** Prints what each service process spent the read phases on, from its CPU profile. */
function summariseProfiles(profiles: string, log: (l: string) => void): void {
  if (!existsSync(profiles)) return;
  for (const f of readdirSync(profiles).filter((n) => n.endsWith('.cpuprofile'))) {
    const file = join(profiles, f);
    log(`CPU profile of the service during the read phases: ${file}`);
    for (const l of summarise(JSON.parse(readFileSync(file, 'utf8')), file, 15)) log(l);
  }
}
