// This service under test: its servers from the project's own scripts, the compiled service in its own process.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { removeCluster } from '../../../infra/postgres.js';
import { launch, ROOT, startStack, stopChild, waitForPort, type StartedStack } from '../../../infra/stack.js';
import { summarise } from '../../profile.js';
import { call, pool, sleep, type System } from '../system.js';

const PORTS = { redis: 26379, mongo: 27217, postgres: 27232, bolt: 27687, http: 27474 };
const ADMIN = 27030;

/** Neo4j memory for a data set: the page cache holds the whole store (about 1.3 KiB a tuple), the heap its working set. */
function neo4jSizing(tuples: number) {
  const pagecacheMb = Math.max(64, Math.ceil((tuples * 1.3) / 1024 / 64) * 64);
  const heap = tuples > 300_000 ? '2g' : tuples > 30_000 ? '1g' : '512m';
  return { NEO4J_HEAP: heap, NEO4J_PAGECACHE_MB: String(pagecacheMb) };
}

/** With `profile`, the service is restarted under `--cpu-prof` after loading, so the profile covers the read phases only. */
export function ours(tuples: number, log: (l: string) => void, profile = false): System {
  const dataDir = join(ROOT, '.data', 'bench');
  const key = randomUUID();
  const headers = { masterkey: key };
  const base = `http://127.0.0.1:${ADMIN}`;
  let stack: StartedStack | undefined;
  let service: ChildProcess | undefined;
  const sha = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const q = (s: string) => encodeURIComponent(s);
  const profiles = join(dataDir, 'profiles');
  let env: Record<string, string> = {};
  const startService = async (vars: Record<string, string>, flags: string[] = []) => {
    env = vars;
    service = launch('service', process.execPath, [...flags, 'dist/src/main.js'], join(dataDir, 'logs', 'service.log'), vars);
    await waitForPort(ADMIN, service, 'the service', 60_000);
  };
  return {
    label: 'ours (Neo4j index, compiled JS)',
    version: `${pkg.version} (${sha || 'unknown commit'})`,
    async start() {
      log('building dist/ (npm run build)');
      const built = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
      if (built.status !== 0) throw new Error('npm run build failed');
      rmSync(dataDir, { recursive: true, force: true });
      removeCluster(join(dataDir, 'postgres'));
      const sizing = neo4jSizing(tuples);
      log(`Neo4j heap ${sizing.NEO4J_HEAP}, page cache ${sizing.NEO4J_PAGECACHE_MB} MiB`);
      stack = await startStack({ dataDir, ports: PORTS, env: { ...process.env, ...sizing }, log: (l) => log(`  ${l}`) });
      const vars = { ...stack.urls, ADMIN_PORT: String(ADMIN), CLIENT_PORT: String(ADMIN + 1), GRPC_PORT: String(ADMIN + 2), SOCKET_PORT: String(ADMIN + 3), MASTER_KEY: key,
        ADMIN_PASSWORD: randomUUID(), ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn' };
      await startService(vars);
      await call(`${base}/authorization/resources`, { headers, body: { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
        permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'] } } });
    },
    async load(all, progress) {
      // /relations/write takes up to 1,000 arbitrary tuples a call, as SpiceDB's WriteRelationships (OpenFGA's Write: 100).
      const batches: Array<typeof all> = [];
      for (let i = 0; i < all.length; i += 1000) batches.push(all.slice(i, i + 1000));
      let done = 0;
      await pool(batches, 4, async (b) => {
        await call(`${base}/authorization/relations/write`, { headers, body: { updates: b.map(([subject, relation, resource]) => ({ operation: 'create', subject, relation, resource })) } });
        progress(done += b.length);
      });
    },
    async settled() {
      for (;;) {
        const s = await call(`${base}/authorization/indexer/status`, { headers });
        if (s.pending === 0 && !s.rebuild && !s.rebuildRequested) return;
        await sleep(200);
      }
    },
    async beforeReads() {
      if (!profile || !service) return;
      await stopChild(service);
      log(`restarting the service under the CPU profiler (${profiles})`);
      await startService(env, ['--cpu-prof', `--cpu-prof-dir=${profiles}`]);
    },
    target: () => ({ base, headers, check: 'allowed', list: 'ours-list' }),
    check: (s, p, o) => ({ method: 'GET', path: `/authorization/permissions/can?subject=${q(s)}&permission=${p}&resource=${q(o)}` }),
    list: (s, p, type) => ({ method: 'GET', path: `/authorization/permissions/objects?subject=${q(s)}&permission=${p}&resourceType=${type}` }),
    async write([subject, relation, resource]) {
      await call(`${base}/authorization/relations`, { headers, body: { subject, relation, resource } });
    },
    async cacheCounts() {
      const text = await (await fetch(`${base}/metrics`, { headers })).text();
      let hits = 0;
      let total = 0;
      for (const m of text.matchAll(/^authz_check_decisions_total\{([^}]*)\} (\d+)/gm)) {
        total += Number(m[2]);
        if (m[1]!.includes('cached="true"')) hits += Number(m[2]);
      }
      return { hits, total };
    },
    pids: () => ({ ...(stack?.pids ?? {}), ...(service?.pid ? { service: service.pid } : {}) }),
    async stop() {
      if (service) await stopChild(service);
      await stack?.stop();
      if (profile && existsSync(profiles)) {
        for (const f of readdirSync(profiles).filter((n) => n.endsWith('.cpuprofile'))) {
          const file = join(profiles, f);
          log(`CPU profile of the service during the read phases: ${file}`);
          for (const l of summarise(JSON.parse(readFileSync(file, 'utf8')), file, 15)) log(l);
        }
      }
    },
  };
}
