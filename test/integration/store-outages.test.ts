// Neo4j and Redis killed and restarted during a write stream: clear 503s while down, no 500s, convergence after.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startStack, type StartedStack } from '../../infra/stack.js';
import { disagreements, readMongo, waitIdle } from '../support/converge.js';
import { startService, type TestService } from '../support/service.js';

const PORTS = { redis: 36379, mongo: 27117, postgres: 27132, bolt: 37687, http: 37474 };
const dataDir = join(ROOT, '.data', 'test-outages');
const log = (l: string) => process.stderr.write(`[outage stack] ${l}\n`);
const own = () => startStack({ dataDir, ports: PORTS, env: { MONGO_URL: process.env.MONGO_URL }, log });

const folderDef = { name: 'Folder', relations: { viewer: ['User', 'Team'] }, permissions: { view: ['viewer', 'viewer->read'] } };
let stacks: StartedStack[] = [];
let svc: TestService;

beforeAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  stacks.push(await own());
  const urls = stacks[0]!.urls;
  svc = await startService({ NEO4J_URI: urls.NEO4J_URI, REDIS_URL: urls.REDIS_URL });
  expect((await svc.http('POST', '/authorization/resources', { body: folderDef })).status).toBe(200);
}, 240_000);
afterAll(async () => {
  await svc?.stop();
  for (const s of stacks) await s.stop();
  stacks = [];
});

/** Writes until told to stop; returns every status seen, and the slowest 503. */
function stream(tag: string) {
  let stop = false;
  const statuses: number[] = [];
  let slowest503 = 0;
  const acknowledged = new Set<string>();
  const run = (async () => {
    for (let i = 0; !stop; i++) {
      const t0 = Date.now();
      const body = i % 2 ? { subject: `User:${tag}${i}`, relation: 'member', resource: `Team:${tag}${i % 3}` }
        : { subject: `Team:${tag}${i % 3}`, relation: 'viewer', resource: `Folder:${tag}${i % 5}` };
      const res = await svc.http('POST', '/authorization/relations', { body });
      statuses.push(res.status);
      if (res.status === 503) {
        slowest503 = Math.max(slowest503, Date.now() - t0);
        expect(res.body.code).toMatch(/STORE_UNAVAILABLE|NOT_READY/);
        await new Promise((r) => setTimeout(r, 100));
      }
      if (res.status === 201) acknowledged.add(res.body.computedTuple);
    }
  })();
  return { statuses, acknowledged, get slowest503() { return slowest503; }, async end() { stop = true; await run; } };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function outage(server: 'neo4j' | 'redis', tag: string) {
  const s = stream(tag);
  await pause(800);
  await stacks[0]!.kill(server);
  await pause(4000);
  stacks.push(await own());
  await pause(1500);
  await s.end();
  expect(s.statuses.filter((x) => x >= 500 && x !== 503)).toEqual([]);
  expect(s.statuses.filter((x) => x === 503).length).toBeGreaterThan(0);
  expect(s.slowest503).toBeLessThan(12_000);
  expect(s.statuses.filter((x) => x === 201).length).toBeGreaterThan(0);
  await waitIdle(svc.http, 90_000);
  const state = await readMongo(process.env.MONGO_URL!);
  expect([...s.acknowledged].filter((t) => !state.texts.has(t))).toEqual([]);
  const teams = [0, 1, 2].map((i) => `Team:${tag}${i}`);
  const users = [1, 3, 5, 7, 9].map((i) => `User:${tag}${i}`);
  const folders = [0, 1, 2, 3, 4].map((i) => `Folder:${tag}${i}`);
  expect(await disagreements(svc.http, state, { subjects: [...users, ...teams], resources: [...teams, ...folders], types: ['Folder'] })).toEqual([]);
}

describe('store outages during a write stream', () => {
  it('Neo4j killed and restarted: writes answer 503 while it is down, and the index converges after', () => outage('neo4j', 'n'), 300_000);
  it('Redis killed and restarted: writes answer 503 while it is down, and the index converges after', () => outage('redis', 'r'), 300_000);
});
