// `npm run bench:lists [-- --tuples 100000 --runs 200 --reuse]`: loads users, teams and documents through
// /relations/many, then prints p50/p99 of every admin list route (relations with each filter, search and order,
// resources, API tokens, schemas) and, for reference, the MongoDB query the relations list used to run.
// Uses MONGO_URL, NEO4J_URI and REDIS_URL when set (a private stack), else starts its own under .data/bench-lists.
// --reuse keeps what a previous run loaded when it holds at least --tuples tuples; --before N times the old query N times.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient, type Collection } from 'mongodb';
import neo4j from 'neo4j-driver';
import { Redis } from 'ioredis';
import { createApp, portOf } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { COLLECTIONS } from '../src/stores/mongo/connection.js';
import { ROOT, startStack } from '../infra/stack.js';
import { pct, say } from './report.js';

const { values: args } = parseArgs({ options: {
  tuples: { type: 'string', default: '100000' },
  runs: { type: 'string', default: '200' },
  reuse: { type: 'boolean', default: false },
  loaders: { type: 'string', default: '4' },
  before: { type: 'string', default: '3' },
} });
const N = Number(args.tuples);
const RUNS = Number(args.runs);

async function wipe(urls: { MONGO_URL: string; NEO4J_URI: string; REDIS_URL: string }) {
  const mongo = await new MongoClient(urls.MONGO_URL).connect();
  await mongo.db().dropDatabase();
  await mongo.close();
  const driver = neo4j.driver(urls.NEO4J_URI);
  for (let deleted = 1; deleted > 0;) {
    deleted = Number((await driver.executeQuery('MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c')).records[0]!.get('c'));
  }
  await driver.close();
  const redis = new Redis(urls.REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
}

/** The data set of bench/run.ts, grouped by (subject, relation) for /relations/many. */
function dataset(n: number): Map<string, string[]> {
  const users = Math.max(10, Math.round(n / 100));
  const teams = Math.max(7, Math.round(n / 1000));
  const docs = Math.max(1, Math.floor((n - users * 2 - teams) / 3));
  const groups = new Map<string, Set<string>>();
  const add = (s: string, r: string, o: string) => {
    const k = `${s} ${r}`;
    (groups.get(k) ?? groups.set(k, new Set()).get(k)!).add(o);
  };
  for (let t = 1; t < teams; t++) add(`Team:t${Math.floor((t - 1) / 4)}`, 'owner', `Team:t${t}`);
  for (let u = 0; u < users; u++) for (const t of [u % teams, (u * 7) % teams]) add(`User:u${u}`, 'member', `Team:t${t}`);
  for (let d = 0; d < docs; d++) {
    add(`Team:t${teams - 1 - (d % Math.ceil(teams / 2))}`, 'owner', `Document:d${d}`);
    add(`User:u${(d * 13) % users}`, 'reader', `Document:d${d}`);
    add(`User:u${(d * 29 + 5) % users}`, 'reader', `Document:d${d}`);
  }
  return new Map([...groups].map(([k, v]) => [k, [...v]]));
}

/** Calls the admin surface with the masterkey; throws on an error answer, else answers the JSON body. */
type Call = (method: string, path: string, body?: unknown) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function main() {
  const env = process.env;
  const own = !env.MONGO_URL || !env.NEO4J_URI || !env.REDIS_URL;
  const stack = own
    ? await startStack({ dataDir: join(ROOT, '.data', 'bench-lists'), env, log: (l) => say(`  ${l}`),
      ports: { redis: 26479, mongo: 27317, postgres: 27332, bolt: 27787, http: 27574 } })
    : undefined;
  const urls = stack?.urls ?? { MONGO_URL: env.MONGO_URL!, NEO4J_URI: env.NEO4J_URI!, REDIS_URL: env.REDIS_URL! };
  process.once('SIGINT', () => void (stack?.stop() ?? Promise.resolve()).then(() => process.exit(130)));
  const mongo = await new MongoClient(urls.MONGO_URL).connect();
  const rels = mongo.db().collection(COLLECTIONS.relations);
  const stored = await rels.estimatedDocumentCount().catch(() => 0);
  const reuse = args.reuse && stored >= N;
  if (!reuse) await wipe(urls);
  const config = loadConfig({ ...urls, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0', MASTER_KEY: randomUUID(), ADMIN_PASSWORD: 'bench-password',
    ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn' });
  const app = await createApp(config, createLogger('warn'));
  const admin = `http://127.0.0.1:${portOf(await app.listen(), 'admin')}`;
  const headers = { masterkey: config.MASTER_KEY, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(admin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    if (!reuse) await load(call);
    await untilIndexed(call);
    await timeRoutes(call, await rels.estimatedDocumentCount());
    await timeFindsAsBefore(rels);
  } finally {
    await mongo.close();
    await app.close();
    await stack?.stop();
  }
}

/** The data set through /relations/many, `--loaders` calls at a time. */
async function load(call: Call): Promise<void> {
  await call('POST', '/authorization/resources', { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
    permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'], edit: ['owner', 'owner->edit'] } });
  const calls: Array<[string, string, string[]]> = [];
  for (const [k, objects] of dataset(N)) {
    const [subject, relation] = k.split(' ') as [string, string];
    for (let i = 0; i < objects.length; i += 1000) calls.push([subject, relation, objects.slice(i, i + 1000)]);
  }
  const total = calls.reduce((n, c) => n + c[2].length, 0);
  say(`loading ${total} tuples in ${calls.length} calls of /relations/many (${args.loaders} at a time)`);
  const t0 = Date.now();
  let next = 0;
  let done = 0;
  await Promise.all(Array.from({ length: Number(args.loaders) }, async () => {
    while (next < calls.length) {
      const [subject, relation, resources] = calls[next++]!;
      await call('POST', '/authorization/relations/many', { subject, relation, resources });
      done += resources.length;
      if (done % 100_000 < resources.length) say(`  ${done} acknowledged, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  }));
  say(`acknowledged in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Waits for the index, then adds a few API tokens and schemas (their lists are timed too). */
async function untilIndexed(call: Call): Promise<void> {
  const indexing = Date.now();
  for (;;) {
    const s = await call('GET', '/authorization/indexer/status');
    if (s.pending === 0 && !s.rebuild) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  say(`indexed ${((Date.now() - indexing) / 1000).toFixed(1)} s later`);
  for (let i = 0; i < 5; i++) await call('POST', '/api-tokens', { name: `bench-${i}` });
  for (let i = 0; i < 5; i++) {
    await call('POST', '/database/schemas', { name: `BenchSchema${i}`, fields: { title: 'String' }, serviceOptions: { authorization: { enabled: i % 2 === 0 } } })
      .catch(() => undefined); // kept from an earlier run
  }
}

/** Times each list route, one call at a time after five warm-up calls. */
async function timeRoutes(call: Call, stored: number): Promise<void> {
  const count = (await call('GET', '/authorization/relations?limit=1')).count as number;
  say(`\n${count} tuples listed (${stored} in MongoDB); ${RUNS} calls per route, one at a time\n`);
  const routes: Array<[string, string]> = [
    ['relations, first page (limit 10)', '/authorization/relations?limit=10'],
    ['relations, first page, descending', '/authorization/relations?sort=-computedTuple'],
    ['relations, skip 1,000', '/authorization/relations?skip=1000'],
    ['relations, limit 1,000', '/authorization/relations?limit=1000'],
    ['relations, subjectType=Team', '/authorization/relations?subjectType=Team'],
    ['relations, resourceType=Document', '/authorization/relations?resourceType=Document'],
    ['relations, resourceType=Team (2%)', '/authorization/relations?resourceType=Team'],
    ['relations, subjectType=User&resourceType=Team', '/authorization/relations?subjectType=User&resourceType=Team'],
    ['relations, search an object (Document:d4242)', '/authorization/relations?search=Document:d4242'],
    ['relations, search a subject (user:u42#)', '/authorization/relations?search=user:u42%23'],
    ['relations, search a tuple', '/authorization/relations?search=User:u7%23member@Team:t7'],
    ['relations, search nothing (nope)', '/authorization/relations?search=nope'],
    ['relations, search broad (document, > 10,000)', '/authorization/relations?search=document'],
    ['relations, search + resourceType=Team', '/authorization/relations?search=u1&resourceType=Team'],
    ['resources', '/authorization/resources'],
    ['resources, search', '/authorization/resources?search=doc'],
    ['api tokens', '/api-tokens'],
    ['schemas', '/database/schemas'],
  ];
  say('| route | p50 ms | p99 ms | count |');
  say('|---|---:|---:|---:|');
  for (const [label, path] of routes) {
    let last: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; i < 5; i++) last = await call('GET', path);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      last = await call('GET', path);
      times.push(performance.now() - t);
    }
    say(`| ${label} | ${pct(times, 0.5).toFixed(2)} | ${pct(times, 0.99).toFixed(2)} | ${last.count ?? ''}${last.countCapped ? '+' : ''} |`);
  }
}

/** What the list ran before: a filtered, sorted find and a count on FerretDB, which reads the whole collection. */
async function timeFindsAsBefore(rels: Collection): Promise<void> {
  const before: Array<[string, Record<string, unknown>]> = [
    ['MongoDB list as before (limit 10, sort createdAt)', {}],
    ['MongoDB list as before, resourceType=Document', { resourceType: 'Document' }],
    ['MongoDB list as before, search', { computedTuple: { $regex: 'Document:d4242', $options: 'i' } }],
  ];
  for (const [label, filter] of before) {
    const times: number[] = [];
    for (let i = 0; i < Number(args.before); i++) {
      const t = performance.now();
      await Promise.all([rels.find(filter).sort({ createdAt: 1, _id: 1 }).limit(10).toArray(), rels.countDocuments(filter)]);
      times.push(performance.now() - t);
    }
    if (times.length) say(`| ${label} | ${pct(times, 0.5).toFixed(0)} | ${pct(times, 0.99).toFixed(0)} (${times.length} runs) | |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
