// `npm run bench [-- --tuples 100000 --concurrency 16 --checks 4000]`: loads users, nested teams and documents,
// rebuilds the index, then prints check latency (HTTP and the bare index query), list-objects latency and write lag.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import neo4j from 'neo4j-driver';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { neo4jIndexStore } from '../src/stores/neo4j/index-store.js';
import { tupleId } from '../src/stores/mongo/authz.js';
import { ROOT, startStack } from '../infra/stack.js';

const { values: args } = parseArgs({ options: {
  tuples: { type: 'string', default: '100000' }, concurrency: { type: 'string', default: '16' }, checks: { type: 'string', default: '4000' },
} });
const N = Number(args.tuples);
const C = Number(args.concurrency);
const CHECKS = Number(args.checks);
const say = (s: string) => process.stdout.write(`${s}\n`);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]!; };
const fmt = (xs: number[]) => `p50 ${pct(xs, 0.5).toFixed(2)} ms  p95 ${pct(xs, 0.95).toFixed(2)} ms  p99 ${pct(xs, 0.99).toFixed(2)} ms`;

async function main() {
  const dataDir = join(ROOT, '.data', 'bench');
  rmSync(dataDir, { recursive: true, force: true });
  const stack = await startStack({ dataDir, env: process.env, log: (l) => say(`  ${l}`), ports: { redis: 26379, mongo: 27217, bolt: 27687, http: 27474 } });
  const config = loadConfig({ ...stack.urls, ADMIN_PORT: '0', CLIENT_PORT: '0', MASTER_KEY: randomUUID(), ADMIN_PASSWORD: 'bench-password',
    ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn' });
  const app = await createApp(config, createLogger('warn'));
  const { admin } = await app.listen();
  const headers = { masterkey: config.MASTER_KEY, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`http://127.0.0.1:${admin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    await call('POST', '/authorization/resources', { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
      permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'], edit: ['owner', 'owner->edit'] } });
    // Shape: users, a three-level team tree, documents owned by leaf teams with two direct readers each.
    const users = Math.max(10, Math.round(N / 100));
    const teams = Math.max(7, Math.round(N / 1000));
    const docs = Math.max(1, Math.floor((N - users * 2 - teams) / 3));
    const tuples: Array<[string, string, string]> = [];
    for (let t = 1; t < teams; t++) tuples.push([`Team:t${Math.floor((t - 1) / 4)}`, 'owner', `Team:t${t}`]);
    for (let u = 0; u < users; u++) for (const t of [u % teams, (u * 7) % teams]) tuples.push([`User:u${u}`, 'member', `Team:t${t}`]);
    for (let d = 0; d < docs; d++) {
      tuples.push([`Team:t${teams - 1 - (d % Math.ceil(teams / 2))}`, 'owner', `Document:d${d}`]);
      tuples.push([`User:u${(d * 13) % users}`, 'reader', `Document:d${d}`]);
      tuples.push([`User:u${(d * 29 + 5) % users}`, 'reader', `Document:d${d}`]);
    }
    const unique = [...new Map(tuples.map((t) => [t.join('|'), t])).values()];
    tuples.length = 0;
    tuples.push(...unique);
    say(`data set: ${tuples.length} tuples (${users} users, ${teams} teams in a tree, ${docs} documents)`);
    const mongo = new MongoClient(stack.urls.MONGO_URL);
    await mongo.connect();
    const col = mongo.db().collection('relationships');
    let t0 = Date.now();
    for (let i = 0; i < tuples.length; i += 5000) {
      await col.insertMany(tuples.slice(i, i + 5000).map(([s, r, o]) => {
        const [st, ...si] = s.split(':'); const [ot, ...oi] = o.split(':');
        return { _id: tupleId(`${s}#${r}@${o}`) as unknown as never, subject: s, relation: r, resource: o, computedTuple: `${s}#${r}@${o}`, subjectType: st,
          subjectId: si.join(':'), resourceType: ot, resourceId: oi.join(':'), createdAt: new Date(), revision: 0 };
      }));
    }
    say(`loaded into MongoDB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    t0 = Date.now();
    const rebuild = await call('POST', '/authorization/indexer/reconstruct', {});
    for (;;) {
      const s = await call('GET', '/authorization/indexer/status');
      if (s.appliedRevision >= rebuild.revision) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const rebuildSeconds = (Date.now() - t0) / 1000;
    say(`hard rebuild (index + projection): ${rebuildSeconds.toFixed(1)} s, ${(tuples.length / rebuildSeconds).toFixed(0)} tuples/s`);

    const pairs = Array.from({ length: CHECKS }, (_, i) => [`User:u${(i * 31) % users}`, `Document:d${(i * 97) % docs}`] as const);
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

    const driver = neo4j.driver(stack.urls.NEO4J_URI, undefined, { disableLosslessIntegers: true });
    const index = neo4jIndexStore(driver);
    const bare: number[] = [];
    for (const [s, o] of pairs.slice(0, 2000)) { const t = performance.now(); await index.check(s, o, 'read'); bare.push(performance.now() - t); }
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

    const lag: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await call('POST', '/authorization/relations', { subject: `User:newcomer${i}`, relation: 'member', resource: 'Team:t0' });
      const r = await call('GET', `/authorization/permissions/can?subject=User:newcomer${i}&permission=read&resource=Document:d${i}`);
      lag.push(performance.now() - t);
      if (!r.allowed) say(`  unexpected: newcomer${i} cannot read d${i}`);
    }
    say(`write-to-visible (member added to the root team, inherited read on a document): ${fmt(lag)}`);
    say(`memory: rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (service process)`);
    await driver.close();
    await mongo.close();
  } finally {
    await app.close();
    await stack.stop();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
