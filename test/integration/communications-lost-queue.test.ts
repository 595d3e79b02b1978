// Sends acknowledged to the caller that the queue's Redis then lost (its AOF is written once a second) are queued again
// from MongoDB and delivered once each: the queue's keys are deleted in Redis itself, so this file runs on the stack
// (the rest of communications: communications.test.ts).
import { Redis } from 'ioredis';
import { ownDatabase } from '../support/own-db.js';
import { startService, type TestService } from '../support/service.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';

let svc: TestService;
let smtp: TestSmtp;
const SMTP_AUTH = { user: 'mailer', pass: 'smtp-secret-pass' };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` answers something, or fails after `ms`. */
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

beforeAll(async () => {
  smtp = await startSmtp(SMTP_AUTH);
  // A Redis prefix and a MongoDB database of its own: no other service on the shared servers runs this file's jobs.
  const MONGO_URL = await ownDatabase('authz_communications_lost');
  svc = await startService({ MONGO_URL, READY_REQUIRED_MODULES: 'communications', REDIS_PREFIX: `comm-test-${process.pid}` }, { wipe: false });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  await smtp?.close();
});

it("queues again from MongoDB the acknowledged sends the queue's Redis lost, and delivers each once", async () => {
  // Redis writes its AOF once a second: a crash can lose the last jobs it acknowledged. Here the queue loses them all.
  let hold = true;
  smtp.refuse = (rcpt) => (rcpt.startsWith('lost-') && hold ? { code: 451, message: 'try again later' } : null);
  expect((await svc.http('PATCH', '/config/communications', { body: {
    email: { provider: 'smtp', from: 'service@example.com', smtp: { host: '127.0.0.1', port: smtp.port, auth: SMTP_AUTH, timeoutMs: 5000 } },
    orchestration: { attempts: 20, backoff: { delayMs: 500 } },
  } })).status).toBe(200);
  const jobs: string[] = [];
  for (const n of [1, 2, 3]) {
    const r = await svc.http('POST', '/communications/email', { body: { to: `lost-${n}@example.com`, subject: `Lost ${n}`, text: 'found', idempotencyKey: `lost-${n}` } });
    expect(r.status).toBe(201);
    jobs.push(r.body.jobId);
  }
  await pause(1000);
  const redis = new Redis(process.env.REDIS_URL!);
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `comm-test-${process.pid}:bull:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  expect(keys.length).toBeGreaterThan(0);
  await redis.del(...keys);
  redis.disconnect();
  hold = false;
  // The sweep looks for sends undelivered 15 s after they were acknowledged.
  const delivered = await until("the lost sends' delivery", async () => {
    const r = await svc.http('GET', '/communications/outbox?channel=email&limit=1000');
    const found = (r.body.messages as Array<{ _id: string; provider: string }>).filter((m) => jobs.includes(m._id));
    return found.length === jobs.length && found;
  }, 60_000);
  expect(delivered.map((m) => m.provider)).toEqual(['smtp', 'smtp', 'smtp']);
  for (const n of [1, 2, 3]) expect(smtp.received.filter((m) => m.to.includes(`lost-${n}@example.com`))).toHaveLength(1);
  const outbox = await svc.http('GET', '/communications/outbox?channel=email&limit=1000');
  expect(outbox.body.messages.filter((m: { _id: string }) => jobs.includes(m._id))).toHaveLength(3);
  expect((await svc.http('PATCH', '/config/communications', { body: { orchestration: { attempts: 3, backoff: { delayMs: 200 } } } })).status).toBe(200);
}, 90_000);
