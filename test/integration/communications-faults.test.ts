// Redis killed (kill -9) and restarted while senders queue emails: every send is acknowledged in the end (a 503 is
// retried with the same idempotency key), and the SMTP server receives each message exactly once.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { portOpen, ROOT, startStack, type StackPorts, type StartedStack } from '../../infra/stack.js';
import { ownDatabase } from '../support/own-db.js';
import { startService, type TestService } from '../support/service.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { communicationsFaultRedisPort, stackDataName } from '../support/test-stacks.js';

/**
 * A Redis of this file's own (MongoDB and Neo4j are the shared ones, which it does not kill): neither the dev stack's,
 * the test stack's nor the store-fault test's ports, and below Linux's ephemeral range so a restart finds its port free.
 */
const PORTS: StackPorts = { redis: communicationsFaultRedisPort(), mongo: 0, postgres: 0, bolt: 0, http: 0 };
const dataDir = join(ROOT, '.data', stackDataName('test-communications-faults'));
const SENDERS = 4;
const DOWN_MS = 5000;
/**
 * A send made while Redis is down, or in flight when it went, is answered within this: the producer's connection fails
 * such calls at once (before, one in flight at the kill was sent again after the return and waited out the queue's 5 s
 * call bound, as long as the outage here, so at times no 503 at all came while Redis was down).
 */
const FAIL_FAST_MS = 2000;

const say = (l: string) => process.stderr.write(`[communications faults] ${l}\n`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stacks: StartedStack[] = [];
let svc: TestService;
let smtp: TestSmtp;
const tag = `rf${Date.now().toString(36)}`;

const startRedis = async () => {
  const s = await startStack({ dataDir, ports: PORTS, env: { MONGO_URL: process.env.MONGO_URL, NEO4J_URI: process.env.NEO4J_URI }, log: (l) => say(l) });
  expect(s.started).toEqual(['redis']);
  stacks.push(s);
};

beforeAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  expect(await portOpen(PORTS.redis)).toBe(false);
  await startRedis();
  smtp = await startSmtp();
  // A database of its own on the shared MongoDB: another file wiping the shared one does not empty the outbox read here.
  const MONGO_URL = await ownDatabase('authz_communications_faults');
  svc = await startService({ MONGO_URL, REDIS_URL: `redis://127.0.0.1:${PORTS.redis}`, REDIS_PREFIX: tag, READY_REQUIRED_MODULES: 'communications' }, { wipe: false,
    logLines: [] });
  const r = await svc.http('PATCH', '/config/communications', { body: {
    email: { provider: 'smtp', smtp: { host: '127.0.0.1', port: smtp.port, timeoutMs: 5000 } },
    orchestration: { attempts: 10, backoff: { delayMs: 200 }, concurrency: 5 },
  } });
  expect(r.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  await smtp?.close();
  for (const s of stacks.reverse()) await s.stop();
}, 60_000);

interface Outcome {
  key: string;
  status: number;
  ms: number;
  at: number;
  code?: string;
}

/** One send with a hard client timeout, so a hang shows as status 0 instead of stalling the test. */
async function send(key: string): Promise<Outcome> {
  const at = Date.now();
  try {
    const res = await fetch(`${svc.admin}/communications/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...svc.asAdmin },
      signal: AbortSignal.timeout(30_000),
      body: JSON.stringify({ to: 'ops@example.com', subject: `msg ${key}`, text: `body of ${key}`, idempotencyKey: key }),
    });
    const reply = await res.json().catch(() => ({})) as { code?: string };
    return { key, status: res.status, ms: Date.now() - at, at, code: reply.code };
  } catch {
    return { key, status: 0, ms: Date.now() - at, at };
  }
}

/** SENDERS senders of new messages; a send not acknowledged is sent again with its key until it is. */
function senders() {
  let stop = false;
  const outcomes: Outcome[] = [];
  const acknowledged = new Set<string>();
  const one = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const key = `${tag}-${w}-${i}`;
      for (;;) {
        const o = await send(key);
        outcomes.push(o);
        if (o.status === 200 || o.status === 201) {
          acknowledged.add(key);
          break;
        }
        await pause(100);
      }
    }
  };
  const run = Promise.all(Array.from({ length: SENDERS }, (_, w) => one(w)));
  return { outcomes, acknowledged, async end() {
    stop = true;
    await run;
  } };
}

it('loses no message and sends none twice when Redis is killed and restarted during sends', async () => {
  const stream = senders();
  await pause(2000);
  const killedAt = Date.now();
  await stacks[0]!.kill('redis', 'SIGKILL');
  say('redis killed (kill -9)');
  await pause(DOWN_MS / 2);
  // The module needs its queue's Redis: /ready says so while it is down.
  const ready = await svc.http('GET', '/ready');
  await pause(DOWN_MS / 2);
  await startRedis();
  const backAt = Date.now();
  say(`redis listening again after ${backAt - killedAt} ms`);
  await pause(3000);
  await stream.end();

  const subjects = [...stream.acknowledged].map((k) => `msg ${k}`);
  const deliveredOnce = () => {
    const counts = new Map<string, number>();
    for (const m of smtp.received) {
      const subject = /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? '';
      if (subject.includes(tag)) counts.set(subject, (counts.get(subject) ?? 0) + 1);
    }
    return counts;
  };
  const end = Date.now() + 120_000;
  while (subjects.some((s) => !deliveredOnce().has(s)) && Date.now() < end) await pause(250);
  const drainedMs = Date.now() - backAt;
  const counts = deliveredOnce();
  const all = stream.outcomes;
  const unavailable = all.filter((o) => o.status === 503);
  const whileDown = unavailable.filter((o) => o.at + o.ms < backAt && o.at > killedAt);
  // Every send that overlapped the outage: made during it, or in flight at the kill.
  const overlapping = all.filter((o) => o.at + o.ms > killedAt && o.at < backAt);
  const line = `${all.length} sends, ${stream.acknowledged.size} messages acknowledged, ${counts.size} delivered; `
    + `${unavailable.length} × 503 (slowest ${Math.max(0, ...whileDown.map((o) => o.ms))} ms while down), slowest send ${Math.max(0, ...all.map((o) => o.ms))} ms `
    + `(${Math.max(0, ...overlapping.map((o) => o.ms))} ms of those that overlapped the outage); `
    + `every message delivered ${drainedMs} ms after the return`;
  say(line);

  expect([ready.status, ready.body.checks['module:communications']]).toEqual([503, { status: 'fail', durationMs: expect.any(Number), message: 'down' }]);
  expect((await svc.http('GET', '/ready')).status).toBe(200);
  const when = (o: Outcome) => `${o.key}: ${o.status} ${o.code ?? ''} in ${o.ms} ms, ${o.at - killedAt} ms after the kill`;
  expect(all.filter((o) => ![200, 201, 503].includes(o.status)).map(when)).toEqual([]);
  expect(unavailable.filter((o) => o.code !== 'STORE_UNAVAILABLE').map(when)).toEqual([]);
  expect(whileDown.length).toBeGreaterThan(0);
  expect(overlapping.filter((o) => o.ms > FAIL_FAST_MS).map(when)).toEqual([]);
  expect(subjects.filter((s) => !counts.has(s))).toEqual([]);
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
  expect(counts.size).toBe(subjects.length);
  // The outbox holds each one once too.
  const ids: string[] = [];
  for (let skip = 0;; skip += 1000) {
    const page = await svc.http('GET', `/communications/outbox?channel=email&limit=1000&skip=${skip}`);
    expect(page.status).toBe(200);
    ids.push(...(page.body.messages as Array<{ _id: string }>).map((m) => m._id).filter((id) => id.includes(tag)));
    if (page.body.messages.length < 1000) break;
  }
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBe(subjects.length);
}, 240_000);
