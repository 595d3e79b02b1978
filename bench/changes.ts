// `npm run bench:changes [-- --revisions 1000000 --runs 50 --reuse]`: stores that many change-log entries (one tuple each,
// as single writes leave them) straight into MongoDB, then prints p50/p95 of change-feed pages of 1,000 over REST from
// the start and from the middle of the log, first read (blocks not yet sealed) and read again (sealed), and the time to
// the first page on the admin feed socket (the README's wscat path).
// Uses MONGO_URL and REDIS_URL when set (a private stack; its own database `bench_changes` and Redis database 9, which the
// tests' wipes leave alone), else starts its own under .data/bench-changes. --reuse keeps a log an earlier run stored.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { createApp, portOf } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { COLLECTIONS } from '../src/stores/mongo/connection.js';
import { ROOT, startStack } from '../infra/stack.js';
import { pct, say } from './report.js';

const { values: args } = parseArgs({ options: {
  revisions: { type: 'string', default: '1000000' },
  runs: { type: 'string', default: '50' },
  cold: { type: 'string', default: '5' },
  reuse: { type: 'boolean', default: false },
} });
const N = Number(args.revisions);
const RUNS = Number(args.runs);
const COLD = Number(args.cold);
const PAGE = 1000;

const env = process.env;
const stack = env.MONGO_URL && env.NEO4J_URI && env.REDIS_URL ? undefined
  : await startStack({ dataDir: join(ROOT, '.data', 'bench-changes'), env, log: (l) => say(`  ${l}`),
    ports: { redis: 26579, mongo: 27417, postgres: 27432, bolt: 27887, http: 27674 } });
const base = stack?.urls ?? { MONGO_URL: env.MONGO_URL!, NEO4J_URI: env.NEO4J_URI!, REDIS_URL: env.REDIS_URL! };
const mongoUrl = new URL(base.MONGO_URL);
mongoUrl.pathname = '/bench_changes';
const redisUrl = new URL(base.REDIS_URL);
redisUrl.pathname = '/9';
const urls = { ...base, MONGO_URL: mongoUrl.toString(), REDIS_URL: redisUrl.toString() };
process.once('SIGINT', () => void (stack?.stop() ?? Promise.resolve()).then(() => process.exit(130)));

/** Wall-clock times, and the CPU this process (the service and its client) spent per run: the machine may be shared. */
const row = (label: string, xs: number[], cpu: number) =>
  say(`| ${label} | ${pct(xs, 0.5).toFixed(1)} | ${pct(xs, 0.95).toFixed(1)} | ${(cpu / xs.length).toFixed(1)} | ${xs.length} |`);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** Stores revisions 1..n as one-tuple entries, 1,000 a call, four calls at a time; the log is old, so no gap waits. */
async function fill(mongo: MongoClient, n: number) {
  const db = mongo.db();
  await db.dropDatabase();
  const redis = new Redis(urls.REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const log = db.collection<{ _id: number }>(COLLECTIONS.changes);
  const at = new Date(Date.now() - 86_400_000);
  const t0 = Date.now();
  let next = 1;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next <= n) {
      const from = next;
      next += 1000;
      const docs = [];
      for (let r = from; r < from + 1000 && r <= n; r++) {
        docs.push({ _id: r, revision: r, kind: 'tuples', op: 'add', tuples: [`User:u${r % 10_000}#reader@Document:d${r}`], at });
      }
      await log.insertMany(docs, { ordered: false });
      if (from % 100_000 === 1) say(`  ${from - 1} stored, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  }));
  say(`stored ${n} revisions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function main() {
  const mongo = await new MongoClient(urls.MONGO_URL).connect();
  // Whether an earlier run stored as many (a count would read the whole log on FerretDB v1).
  const stored = await mongo.db().collection<{ _id: number }>(COLLECTIONS.changes).findOne({ _id: N });
  if (!args.reuse || !stored) await fill(mongo, N);
  else say(`reusing the ${N} revisions stored before`);
  // As a load leaves the log: no block sealed yet (an earlier run's first reads sealed some).
  await mongo.db().collection(COLLECTIONS.changeBlocks).drop().catch(() => undefined);
  const config = loadConfig({ ...urls, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0', MASTER_KEY: randomUUID(), ADMIN_PASSWORD: 'bench-password',
    ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn', ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }) });
  const app = await createApp(config, createLogger('warn'));
  const adminPort = portOf(await app.listen(), 'admin');
  const page = async (after: number) => {
    const t = performance.now();
    const r = await fetch(`http://127.0.0.1:${adminPort}/authorization/changes?after=${after}&limit=${PAGE}`, { headers: { masterkey: config.MASTER_KEY } });
    const body = await r.json() as { changes: unknown[]; next: number };
    if (r.status !== 200 || body.changes.length !== PAGE) throw new Error(`page after ${after}: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    return performance.now() - t;
  };
  /** Connect to the first page on the admin feed socket, as `npx wscat -c ws://…/authorization/changes?after=N` does. */
  const socketPage = (after: number) =>
    new Promise<number>((resolve, reject) => {
      const t = performance.now();
      const ws = new WebSocket(`ws://127.0.0.1:${adminPort}/authorization/changes?after=${after}`, { headers: { masterkey: config.MASTER_KEY } });
      ws.once('message', (m: Buffer) => {
        const elapsed = performance.now() - t;
        const msg = JSON.parse(m.toString()) as { type: string; changes?: unknown[] };
        ws.close();
        if (msg.type === 'changes' && (msg.changes?.length ?? 0) > 0) resolve(elapsed); else reject(new Error(m.toString().slice(0, 300)));
      });
      ws.once('error', reject);
    });
  try {
    const mid = Math.floor(N / 2);
    // A process seeds its revision counter from the highest revision MongoDB holds, on its first call.
    const t0 = performance.now();
    await page(0);
    say(`first call after the start: ${(performance.now() - t0).toFixed(0)} ms (seeds the revision counter from MongoDB; reads blocks 0-10)`);
    say(`\n${N} revisions stored; pages of ${PAGE} (REST, one at a time); load average ${load()}\n`);
    say('| read | p50 ms | p95 ms | CPU ms in the service + client, per run | runs |');
    say('|---|---:|---:|---:|---:|');
    const runs = async (label: string, n: number, one: (i: number) => Promise<number>) => {
      const xs: number[] = [];
      const c0 = cpuMs();
      for (let i = 0; i < n; i++) xs.push(await one(i));
      row(label, xs, cpuMs() - c0);
    };
    // First reads: each run a region no page read before, so its blocks are read entry by entry and sealed.
    const fresh = (origin: number, i: number) => origin + (i + 1) * 10 * PAGE;
    await runs('first read, from the start (unsealed blocks)', COLD, (i) => page(fresh(0, i)));
    await runs('first read, from the middle (unsealed blocks)', COLD, (i) => page(fresh(mid, i)));
    await runs('from the start (after=0), sealed', RUNS, () => page(0));
    await runs('from the middle, sealed', RUNS, () => page(mid));
    // A socket's follower reads on past its first page until it sees the close: those pages are read (sealed) first,
    // and the follower of a first read is given time to finish, so that no run pays for the one before.
    const quiet = () => new Promise((r) => setTimeout(r, 5000));
    await runs('feed socket, connect to first page, first read', COLD, async (i) => {
      const t = await socketPage(fresh(mid, i) + 5 * PAGE);
      await quiet();
      return t;
    });
    await page(PAGE);
    await page(mid + PAGE);
    await runs('feed socket, connect to first page (after=0 and the middle), sealed', RUNS, (i) => socketPage(i % 2 ? 0 : mid));
    say(`\nload average at the end ${load()}`);
  } finally {
    await app.close();
    await mongo.close();
    await stack?.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
