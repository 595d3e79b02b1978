// Communications through HTTP and the queue: device tokens, notifications, sends with idempotency keys, retries against
// a real SMTP server, the dead-letter list and its replay, /metrics, config masking, MCP. On the twins the mail still
// goes out over SMTP (startService realIo); sends the queue's Redis lost: communications-lost-queue.test.ts, on the stack.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ownDatabase } from '../support/own-db.js';
import { startService, type TestService } from '../support/service.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';

let svc: TestService;
let smtp: TestSmtp;
const SMTP_AUTH = { user: 'mailer', pass: 'smtp-secret-pass' };
interface User {
  id: string;
  accessToken: string;
}
let alice: User;
let bob: User;
/** The service's log lines (debug level): the SMTP password must be in none of them. */
const logLines: string[] = [];

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (u: User) => ({ authorization: `Bearer ${u.accessToken}` });
const client = (method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}) =>
  svc.http(method, `${svc.client}${path}`, { body: o.body, headers: o.headers ?? {} });

async function signUp(email: string): Promise<User> {
  const reg = await client('POST', '/authentication/local/new', { body: { email, password: 'correct horse' } });
  expect(reg.status).toBe(201);
  const login = await client('POST', '/authentication/local', { body: { email, password: 'correct horse' } });
  expect(login.status).toBe(200);
  return { id: reg.body.user._id, accessToken: login.body.accessToken };
}

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
const outboxHas = (jobId: string) =>
  until(`delivery of ${jobId}`, async () => {
    const r = await svc.http('GET', '/communications/outbox?limit=1000');
    return (r.body.messages as Array<{ _id: string; to: string[] } & Record<string, unknown>>).find((m) => m._id === jobId);
  });

beforeAll(async () => {
  smtp = await startSmtp(SMTP_AUTH);
  // A Redis prefix and a MongoDB database of its own: no other service on the shared servers runs this file's jobs, and
  // another file's wipe does not empty its outbox.
  const own: Record<string, string> = process.env.TEST_STORES === 'memory' ? {} : { MONGO_URL: await ownDatabase('authz_communications') };
  svc = await startService({ ...own, READY_REQUIRED_MODULES: 'communications', REDIS_PREFIX: `comm-test-${process.pid}`, LOG_LEVEL: 'debug' }, { wipe: false, logLines,
    realIo: true });
  alice = await signUp('alice@example.com');
  bob = await signUp('bob@example.com');
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  await smtp?.close();
});

describe('every route wants its credentials', () => {
  it('answers 401 without a token on the client routes', async () => {
    for (const [m, p, body] of [['POST', '/token', { token: 't', platform: 'ios' }], ['DELETE', '/token', { token: 't' }], ['GET', '/notifications', undefined], ['PATCH',
      '/notifications', { all: true }]] as const) {
      const r = await client(m, p, { body });
      expect([m, p, r.status, r.body.code]).toEqual([m, p, 401, 'UNAUTHENTICATED']);
      const bad = await client(m, p, { body, headers: { authorization: 'Bearer not-a-token' } });
      expect([m, p, bad.status]).toEqual([m, p, 401]);
    }
  });

  it('answers 401 without admin credentials on the send, outbox and dead-letter routes', async () => {
    for (const [m, p, body] of [['POST', '/communications/email', { to: 'a@example.com', subject: 's', text: 't' }], ['POST', '/communications/push', { userId: 'u', title: 't',
      body: 'b' }], ['POST', '/communications/sms', { to: '+14155550123', body: 'b' }], ['GET', '/communications/outbox', undefined], ['GET', '/communications/dead-letters',
      undefined], ['POST', '/communications/dead-letters/replay', { all: true }]] as const) {
      const r = await svc.http(m, p, { body, headers: {} });
      expect([m, p, r.status]).toEqual([m, p, 401]);
      // A client token is not an admin credential.
      expect([m, p, (await svc.http(m, p, { body, headers: bearer(alice) })).status]).toEqual([m, p, 401]);
    }
  });
});

describe('device tokens and notifications', () => {
  it('registers and removes device tokens, each user only their own, at most the configured number', async () => {
    expect((await svc.http('PATCH', '/config/communications', { body: { pushNotifications: { maxTokensPerUser: 3 } } })).status).toBe(200);
    const made = await client('POST', '/token', { body: { token: 'device-a1', platform: 'ios' }, headers: bearer(alice) });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ token: 'device-a1', platform: 'ios' });
    expect((await client('POST', '/token', { body: { token: 'device-a1', platform: 'ios' }, headers: bearer(alice) })).status).toBe(201);
    for (const t of ['device-a2', 'device-a3', 'device-a4']) {
      expect((await client('POST', '/token', { body: { token: t, platform: 'android' }, headers: bearer(alice) })).status).toBe(201);
      await pause(5); // distinct registration times: the oldest is the one dropped
    }
    expect((await client('POST', '/token', { body: { token: 'x', platform: 'toaster' }, headers: bearer(alice) })).status).toBe(400);
    expect((await client('POST', '/token', { body: { token: 'x', platform: 'ios', subject: 'User:bob' }, headers: bearer(alice) })).status).toBe(400);
    // Bob cannot remove Alice's token; Alice can, once.
    expect((await client('DELETE', '/token', { body: { token: 'device-a4' }, headers: bearer(bob) })).status).toBe(404);
    expect((await client('DELETE', '/token', { body: { token: 'device-a4' }, headers: bearer(alice) })).body).toEqual({ deleted: true });
    expect((await client('DELETE', '/token', { body: { token: 'device-a4' }, headers: bearer(alice) })).status).toBe(404);

    const push = await svc.http('POST', '/communications/push', { body: { userId: alice.id, title: 'Devices', body: 'which ones', idempotencyKey: 'devices-1' } });
    expect(push.status).toBe(201);
    const sent = await outboxHas(push.body.jobId);
    // a1 was dropped when a4 came (bound 3), a4 was removed.
    expect([...sent.to].sort()).toEqual(['device-a2', 'device-a3']);
  });

  it("stores a push as the user's notification, unread first, readable and markable only by that user", async () => {
    expect((await svc.http('POST', '/communications/push', { body: { userId: 'nobody', title: 't', body: 'b' } })).status).toBe(404);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await svc.http('POST', '/communications/push', { body: { userId: bob.id, title: `Hello ${i}`, body: `body ${i}`, data: { n: i } } });
      expect(r.status).toBe(201);
      ids.push(r.body.jobId);
    }
    for (const id of ids) await outboxHas(id);
    const list = await client('GET', '/notifications', { headers: bearer(bob) });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 3, unread: 3 });
    expect(list.body.notifications[0]).toEqual({ _id: expect.any(String), title: expect.any(String), body: expect.any(String), data: expect.any(Object), read: false,
      createdAt: expect.any(String) });
    // Alice sees only her own (the one push of the previous test), and cannot mark Bob's.
    const hers = await client('GET', '/notifications', { headers: bearer(alice) });
    expect(hers.body.count).toBe(1);
    expect((await client('PATCH', '/notifications', { body: { ids }, headers: bearer(alice) })).body).toEqual({ updated: 0 });

    const oldest = ids[0]!;
    expect((await client('PATCH', '/notifications', { body: { ids: [oldest, oldest] }, headers: bearer(bob) })).body).toEqual({ updated: 1 });
    const after = await client('GET', '/notifications', { headers: bearer(bob) });
    expect(after.body).toMatchObject({ count: 3, unread: 2 });
    expect(after.body.notifications.map((n: { read: boolean }) => n.read)).toEqual([false, false, true]);
    expect(after.body.notifications[2]._id).toBe(oldest);
    const unread = await client('GET', '/notifications?unread=true&limit=1', { headers: bearer(bob) });
    expect(unread.body).toMatchObject({ count: 2, unread: 2 });
    expect(unread.body.notifications).toHaveLength(1);
    expect((await client('GET', '/notifications?limit=0', { headers: bearer(bob) })).status).toBe(400);
    expect((await client('PATCH', '/notifications', { body: {}, headers: bearer(bob) })).status).toBe(400);
    expect((await client('PATCH', '/notifications', { body: { all: true, ids: ['x'] }, headers: bearer(bob) })).status).toBe(400);
    expect((await client('PATCH', '/notifications', { body: { all: true }, headers: bearer(bob) })).body).toEqual({ updated: 2 });
    expect((await client('GET', '/notifications', { headers: bearer(bob) })).body).toMatchObject({ count: 3, unread: 0 });
  });
});

describe('sending through the queue: idempotency and header injection', () => {
  it('makes one job and one delivery of sends with the same idempotency key, with the store provider by default', async () => {
    const body = { to: ['x@example.com', 'y@example.com'], subject: 'Once', text: 'only once', idempotencyKey: 'once-1' };
    const first = await svc.http('POST', '/communications/email', { body });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ jobId: expect.stringMatching(/^email-once-1-/), created: true });
    const job = first.body.jobId as string;
    // The same request again, with its recipients written otherwise (order, case), is the same job.
    const again = await svc.http('POST', '/communications/email', { body: { ...body, to: ['Y@example.com', 'x@example.com'] } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ jobId: job, created: false });
    const record = await outboxHas(job);
    expect(record).toMatchObject({ channel: 'email', provider: 'store:email', to: ['x@example.com', 'y@example.com'], subject: 'Once', body: 'only once', attempts: 1 });
    expect((await svc.http('POST', '/communications/email', { body })).body).toEqual({ jobId: job, created: false, state: 'completed' });
    const all = await svc.http('GET', '/communications/outbox?channel=email&limit=1000');
    expect(all.body.messages.filter((m: { _id: string }) => m._id === job)).toHaveLength(1);

    const sms = await svc.http('POST', '/communications/sms', { body: { to: '+14155550123', body: 'code 1234', idempotencyKey: 'sms-1' } });
    expect(sms.status).toBe(201);
    expect(await outboxHas(sms.body.jobId)).toMatchObject({ channel: 'sms', provider: 'store:sms', to: ['+14155550123'], body: 'code 1234' });
    expect((await svc.http('POST', '/communications/sms', { body: { to: '555', body: 'x' } })).status).toBe(400);
    expect((await svc.http('POST', '/communications/email', { body: { to: 'x@example.com', subject: 's' } })).status).toBe(400);
    expect((await svc.http('POST', '/communications/email', { body: { to: 'x@example.com', subject: 's', text: 't', idempotencyKey: 'a:b' } })).status).toBe(400);
  });

  it('refuses a line break in any header-bound field (400 naming it) and queues nothing', async () => {
    const mail = { to: 'victim@example.com', subject: 'Hello', text: 'hi', idempotencyKey: 'crlf-mail' };
    const bad: Array<[string, Record<string, unknown>, string]> = [
      ['subject', { ...mail, subject: 'Hello\r\nBcc: someone@example.com' }, 'body.subject'],
      ['subject (LF)', { ...mail, subject: 'Hello\nBcc: someone@example.com' }, 'body.subject'],
      ['subject (CR)', { ...mail, subject: 'Hello\rBcc: someone@example.com' }, 'body.subject'],
      ['from', { ...mail, from: 'me@example.com\r\nReply-To: evil@example.com' }, 'body.from'],
      ['to', { ...mail, to: ['ok@example.com', 'victim@example.com\r\nBcc: someone@example.com'] }, 'body.to'],
    ];
    for (const [what, body, path] of bad) {
      const r = await svc.http('POST', '/communications/email', { body });
      expect([what, r.status, r.body.code, r.body.details[0].path]).toEqual([what, 400, 'VALIDATION_FAILED', expect.stringContaining(path)]);
      expect(r.body.message).toContain(path);
    }
    expect((await svc.http('POST', '/communications/email', { body: bad[0]![1] })).body.message).toContain('line break');
    const push = await svc.http('POST', '/communications/push', { body: { userId: bob.id, title: 'Hi\nthere', body: 'b', idempotencyKey: 'crlf-push' } });
    expect([push.status, push.body.details[0].path]).toEqual([400, 'body.title']);
    const from = await svc.http('PATCH', '/config/communications', { body: { email: { from: 'me@example.com\r\nBcc: someone@example.com' } } });
    expect([from.status, from.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(from.body.details).toEqual([expect.objectContaining({ path: expect.stringContaining('email.from'), message: expect.stringContaining('line break') })]);
    expect((await svc.http('GET', '/config/communications')).body.email.from).toBe('no-reply@localhost');

    // Nothing was queued under those keys: the same keys with clean fields make new jobs, and those are all that arrives.
    const clean = await svc.http('POST', '/communications/email', { body: mail });
    expect([clean.status, clean.body.created]).toEqual([201, true]);
    const cleanPush = await svc.http('POST', '/communications/push', { body: { userId: bob.id, title: 'Hi there', body: 'b', idempotencyKey: 'crlf-push' } });
    expect([cleanPush.status, cleanPush.body.created]).toEqual([201, true]);
    await outboxHas(clean.body.jobId);
    await outboxHas(cleanPush.body.jobId);
    const outbox = (await svc.http('GET', '/communications/outbox?limit=1000')).body.messages as Array<{ subject?: string; to: string[] }>;
    expect(outbox.filter((m) => /[\r\n]/.test(m.subject ?? '') || m.to.some((t) => /[\r\n]/.test(t)))).toEqual([]);
    expect(outbox.filter((m) => m.to.includes('victim@example.com'))).toHaveLength(1);
    const notes = (await client('GET', '/notifications?limit=1000', { headers: bearer(bob) })).body.notifications as Array<{ title: string }>;
    expect(notes.filter((n) => n.title.startsWith('Hi'))).toEqual([expect.objectContaining({ title: 'Hi there' })]);
  });
});

describe('sending through the queue: recipients, secrets and retries', () => {
  it('scopes an idempotency key to the recipients: the same key to someone else is a new job, delivered', async () => {
    const to = async (userId: string) => svc.http('POST', '/communications/push', { body: { userId, title: 'welcome', body: 'b', idempotencyKey: 'welcome' } });
    const toBob = await to(bob.id);
    const toAlice = await to(alice.id);
    expect([toBob.status, toAlice.status]).toEqual([201, 201]);
    expect(toAlice.body.jobId).not.toBe(toBob.body.jobId);
    expect((await to(alice.id)).body).toMatchObject({ jobId: toAlice.body.jobId, created: false });
    await outboxHas(toAlice.body.jobId);
    await outboxHas(toBob.body.jobId);
    for (const [user, jobId] of [[alice, toAlice.body.jobId], [bob, toBob.body.jobId]] as const) {
      const mine = await client('GET', '/notifications', { headers: bearer(user) });
      expect(mine.body.notifications.filter((n: { title: string }) => n.title === 'welcome').map((n: { _id: string }) => n._id)).toEqual([jobId]);
    }
    // Email and sms alike: the same key to another address is another job.
    const mail = (address: string) => svc.http('POST', '/communications/email', { body: { to: address, subject: 's', text: 't', idempotencyKey: 'scoped-1' } });
    const [m1, m2] = [await mail('one@example.com'), await mail('two@example.com')];
    expect([m1.status, m2.status, m1.body.jobId === m2.body.jobId]).toEqual([201, 201, false]);
    const sms = (number: string) => svc.http('POST', '/communications/sms', { body: { to: number, body: 'x', idempotencyKey: 'scoped-1' } });
    expect([(await sms('+14155550101')).status, (await sms('+14155550102')).status, (await sms('+14155550101')).status]).toEqual([201, 201, 200]);
  });

  it('masks the SMTP password in every config read', async () => {
    const r = await svc.http('PATCH', '/config/communications', { body: {
      email: { provider: 'smtp', from: 'service@example.com', smtp: { host: '127.0.0.1', port: smtp.port, auth: SMTP_AUTH, timeoutMs: 5000 } },
      orchestration: { attempts: 3, backoff: { delayMs: 200 } },
    } });
    expect(r.status).toBe(200);
    expect(r.body.email.smtp.auth).toEqual({ user: 'mailer', pass: '********' });
    expect(r.text).not.toContain(SMTP_AUTH.pass);
    const one = await svc.http('GET', '/config/communications');
    expect(one.body.email.smtp.auth.pass).toBe('********');
    expect(one.body.orchestration).toMatchObject({ attempts: 3, backoff: { delayMs: 200 } });
    const all = await svc.http('GET', '/config');
    expect(all.text).not.toContain(SMTP_AUTH.pass);
    expect(all.body.communications.email.provider).toBe('smtp');
    // What a GET showed, sent back whole (a settings form): the stored password stays, the mask is not stored.
    const back = await svc.http('PATCH', '/config/communications', { body: { email: one.body.email } });
    expect(back.status).toBe(200);
    expect(back.body.email.smtp.auth.pass).toBe('********');
  });

  it('retries a message the SMTP server refuses twice and delivers it once, on the third attempt', async () => {
    let refusals = 0;
    smtp.refuse = (rcpt) => (rcpt === 'flaky@example.com' && refusals++ < 2 ? { code: 451, message: 'try again later' } : null);
    const sent = await svc.http('POST', '/communications/email', { body: { to: 'flaky@example.com', subject: 'Third time', text: 'lucky', idempotencyKey: 'flaky-1' } });
    expect(sent.status).toBe(201);
    const record = await outboxHas(sent.body.jobId);
    expect(record).toMatchObject({ provider: 'smtp', attempts: 3, providerMessageId: expect.any(String) });
    expect(refusals).toBe(3);
    const got = smtp.received.filter((m) => m.to.includes('flaky@example.com'));
    expect(got).toHaveLength(1);
    expect(got[0]!.user).toBe('mailer'); // authenticated with the stored password, not the mask
    expect(got[0]!.from).toBe('service@example.com');
    expect(got[0]!.raw).toContain('Subject: Third time');
    const metrics = await svc.http('GET', '/metrics');
    expect(metrics.text).toMatch(/authz_communications_failed_attempts_total\{channel="email"\} [2-9]/);
    expect(metrics.text).toMatch(/authz_communications_sent_total\{channel="email"\} \d+/);
  });
});

describe('sending through the queue: dead letters', () => {
  it('puts a message refused every time in the dead-letter list, and a replay delivers it once', async () => {
    let open = false;
    smtp.refuse = (rcpt) => (rcpt === 'dead@example.com' && !open ? { code: 550, message: 'no such mailbox' } : null);
    const sent = await svc.http('POST', '/communications/email', { body: { to: 'dead@example.com', subject: 'Dead', text: 'letter', idempotencyKey: 'dead-1' } });
    expect(sent.status).toBe(201);
    const dead = await until('the dead letter', async () => {
      const r = await svc.http('GET', '/communications/dead-letters');
      return (r.body.jobs as Array<{ jobId: string }>).find((j) => j.jobId === sent.body.jobId) as Record<string, unknown> | undefined;
    });
    expect(dead).toMatchObject({ channel: 'email', attemptsMade: 3, request: { to: ['dead@example.com'], subject: 'Dead' }, failedReason: expect.stringContaining('550') });
    // A repeated send is the same (dead) job, not a new one.
    expect((await svc.http('POST', '/communications/email', { body: { to: 'dead@example.com', subject: 'Dead', text: 'letter', idempotencyKey: 'dead-1' } })).body)
      .toEqual({ jobId: sent.body.jobId, created: false, state: 'failed' });
    const metrics = await svc.http('GET', '/metrics');
    expect(metrics.text).toMatch(/authz_communications_jobs\{state="dead_lettered"\} 1/);
    expect(metrics.text).toMatch(/authz_communications_dead_lettered_total\{channel="email"\} 1/);
    expect(metrics.text).toMatch(/authz_communications_jobs\{state="waiting"\} 0/);

    open = true;
    const replay = await svc.http('POST', '/communications/dead-letters/replay', { body: { ids: [sent.body.jobId, 'email-unknown'] } });
    expect(replay.body).toEqual({ replayed: [sent.body.jobId], notFound: ['email-unknown'] });
    expect(await outboxHas(sent.body.jobId)).toMatchObject({ provider: 'smtp', attempts: 1 });
    expect(smtp.received.filter((m) => m.to.includes('dead@example.com'))).toHaveLength(1);
    expect((await svc.http('GET', '/communications/dead-letters')).body).toEqual({ jobs: [], count: 0 });
    expect((await svc.http('POST', '/communications/dead-letters/replay', { body: { all: true } })).body).toEqual({ replayed: [], notFound: [] });
  });
});

it('registers the module for /ready and gives MCP the email, push and sms tools under the communications alias', async () => {
  const ready = await svc.http('GET', '/ready');
  expect(ready.body.checks['module:communications']).toEqual({ status: 'pass', durationMs: expect.any(Number) });
  const apiToken = await svc.http('POST', '/api-tokens', { body: { name: 'agent' } });
  const mcp = new Client({ name: 'test-agent', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp?modules=communications`), {
    requestInit: { headers: { authorization: `Bearer ${apiToken.body.token}` } },
  }));
  const names = new Set((await mcp.listTools()).tools.map((t) => t.name));
  for (const n of ['post_communications_email', 'post_communications_push', 'post_communications_sms']) expect([n, names.has(n)]).toEqual([n, true]);
  const r = await mcp.callTool({ name: 'post_communications_sms', arguments: { to: '+14155550199', body: 'from an agent', idempotencyKey: 'mcp-1' } });
  expect(r.isError).toBeFalsy();
  const { jobId } = JSON.parse((r.content as Array<{ text: string }>)[0]!.text) as { jobId: string };
  expect(jobId).toMatch(/^sms-mcp-1-/);
  await outboxHas(jobId);
  await mcp.close();
});

it('never writes the SMTP password to the log', () => {
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.filter((l) => l.includes(SMTP_AUTH.pass))).toEqual([]);
});
