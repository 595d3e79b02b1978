// Hard rebuild of a loaded data set: `npm run bench:rebuild -- --data .data/bench-29100/ours`; prints its time and the checks asked meanwhile.
// The data set is one a bench left (`npm run bench -- --scale 1M` keeps `.data/bench-<port>/ours`); nothing is loaded
// here. Answers to a sample of checks are taken before the rebuild, then the same checks are asked again without pause
// while it runs: every answer must be the same (the old generation answers until the new one is switched in).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp, portOf } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startStack } from '../infra/stack.js';
import { say } from './report.js';

const { values } = parseArgs({ options: { data: { type: 'string' }, 'port-base': { type: 'string', default: '29100' }, checks: { type: 'string', default: '2000' } } });
if (!values.data || !existsSync(join(values.data, 'neo4j'))) {
  say('usage: npm run bench:rebuild -- --data <a bench data dir with neo4j/, postgres/ and redis/> [--port-base N] [--checks N]');
  process.exit(2);
}
const dataDir = resolve(values.data);
const base = Number(values['port-base']);
const ports = { redis: base + 1, mongo: base + 2, postgres: base + 3, bolt: base + 4, http: base + 5 };
// Neo4j is sized from the store it finds, as `npm start` sizes it (the stack says what it chose).
const stack = await startStack({ dataDir, ports, env: process.env, log: (l) => say(`  ${l}`) });
process.once('SIGINT', () => void stack.stop().then(() => process.exit(130)));
const password = `bench-${randomUUID()}`;
const config = loadConfig({ ...stack.urls, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0', MASTER_KEY: randomUUID(), ADMIN_PASSWORD: password,
  ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn', ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }) });
const app = await createApp(config, createLogger('warn'));
const listeners = await app.listen();
const admin = `http://127.0.0.1:${portOf(listeners, 'admin')}`;
const headers = { 'content-type': 'application/json', masterkey: config.MASTER_KEY };
async function call(method: string, path: string, body?: unknown) {
  const r = await fetch(`${admin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await r.json() as Record<string, unknown>;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}
const idle = async () => {
  for (;;) {
    const s = await call('GET', '/authorization/indexer/status');
    if (s.pending === 0 && !s.rebuild && !s.rebuildRequested) return s;
    await new Promise((r) => setTimeout(r, 200));
  }
};

try {
  await idle();
  const count = await call('GET', '/authorization/relations?limit=1');
  say(`data set: ${String(count.count)} tuples`);
  // The bench's data set: users u*, documents d*; half the pairs share a team by construction, the rest mostly not.
  // Half the pairs from stored tuples (a direct reader or an owner team's pairs: allowed), half spread over ids (mostly denied).
  const stored = (await call('GET', '/authorization/relations?resourceType=Document&limit=1000')).relations as Array<{ subject: string; resource: string }>;
  const n = Number(values.checks);
  const pairs = Array.from({ length: n }, (_, i) => (i % 2 === 0 && stored.length
    ? [stored[(i / 2) % stored.length]!.subject, stored[(i / 2) % stored.length]!.resource] as const
    : [`User:u${(i * 31) % 10_000}`, `Document:d${(i * 97) % 326_333}`] as const));
  const ask = async ([s, r]: readonly [string, string]) =>
    (await call('GET', `/authorization/permissions/can?subject=${encodeURIComponent(s)}&permission=read&resource=${encodeURIComponent(r)}`)).allowed as boolean;
  const expected: boolean[] = [];
  for (const p of pairs) expected.push(await ask(p));
  say(`${n} checks answered before the rebuild (${expected.filter(Boolean).length} allowed)`);

  let stop = false;
  let asked = 0;
  let wrong = 0;
  let failed = 0;
  const checker = (async () => {
    for (let i = 0; !stop; i = (i + 1) % n) {
      try {
        if ((await ask(pairs[i]!)) !== expected[i]) wrong++;
      } catch {
        failed++;
      }
      asked++;
    }
  })();
  const t0 = Date.now();
  await call('POST', '/authorization/indexer/reconstruct', {});
  let lastSay = Date.now();
  for (;;) {
    const s = await call('GET', '/authorization/indexer/status');
    if (s.pending === 0 && !s.rebuild && !s.rebuildRequested) break;
    if (Date.now() - lastSay > 15_000) {
      lastSay = Date.now();
      say(`  ${((Date.now() - t0) / 1000).toFixed(0)} s: ${JSON.stringify(s.rebuild ?? s)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (Date.now() - t0) / 1000;
  stop = true;
  await checker;
  say(`hard rebuild: ${seconds.toFixed(1)} s, ${(Number(count.count) / seconds).toFixed(0)} tuples/s`);
  say(`checks during the rebuild: ${asked} asked, ${wrong} wrong, ${failed} failed`);
} finally {
  await app.close();
  await stack.stop();
}
