// The realtime socket with a real `ws` client: the upgrade's credentials, the decision watch, its limits, and the admin feed socket.
import { WebSocket } from 'ws';
import { holdIndexLeases } from '../support/index-leases.js';
import { clientAccount } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';
import { openSocket } from '../support/socket-client.js';

let svc: TestService;
const doc = { name: 'Doc', relations: { owner: ['User', 'Team'] }, permissions: { read: ['owner', 'owner->read'] } };

beforeAll(async () => {
  // A logout closes its sockets within SOCKET_LIVE_CHECK_MS: half a second here, not the default 5 s.
  svc = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }), SOCKET_MAX_PER_USER: '3', SOCKET_LIVE_CHECK_MS: '500' });
  await svc.http('POST', '/authorization/resources', { body: doc });
});
afterAll(async () => {
  await svc?.stop();
});

const login = async (email: string) => {
  const { id, token } = await clientAccount(svc, email);
  return { userId: id, token };
};

/** A connected socket and every message it got, with a wait for the next one that matches. */
const connect = (token: string) => openSocket(svc.socket, token);

/** The HTTP status an upgrade is refused with. */
const refusedWith = (headers: Record<string, string>, url = svc.socket) =>
  new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('error', () => undefined);
  });

describe('realtime socket: upgrades, caps and pushes', () => {
  it('refuses an upgrade without a token, with a garbage one, or off its path', async () => {
    expect(await refusedWith({})).toBe(401);
    expect(await refusedWith({ authorization: 'Bearer garbage' })).toBe(401);
    const { token } = await login('path@example.com');
    expect(await refusedWith({ authorization: `Bearer ${token}` }, svc.socket.replace('/realtime', '/elsewhere'))).toBe(404);
    expect(await refusedWith({ authorization: `Bearer ${token}` }, `${svc.socket}/x`)).toBe(404);
  });

  it('takes /realtime/ (a trailing slash) as /realtime', async () => {
    const { token } = await login('slash@example.com');
    const s = await openSocket(`${svc.socket}/`, token);
    s.send({ type: 'subscribe', topic: 'decisions', id: 's', items: [{ action: 'read', resource: 'Doc:slash' }] });
    expect(await s.next((m) => m.type === 'subscribed')).toMatchObject({ id: 's', items: [{ allowed: false }] });
    s.ws.close();
  });

  it('refuses a user more sockets than the cap, and takes one again once another closes', async () => {
    const { token } = await login('many-sockets@example.com');
    const open = [await connect(token), await connect(token), await connect(token)];
    expect(await refusedWith({ authorization: `Bearer ${token}` })).toBe(429);
    const gone = new Promise((r) => open[0]!.ws.once('close', r));
    open[0]!.ws.close();
    await gone;
    await new Promise((r) => setTimeout(r, 100));
    open.push(await connect(token));
    for (const s of open.slice(1)) s.ws.close();
  });

  it('pushes a grant and a revoke through a team two levels up within a second', async () => {
    const { userId, token } = await login('watcher@example.com');
    await svc.http('POST', '/authorization/relations', { body: { subject: 'Team:top', relation: 'owner', resource: 'Team:mid' } });
    await svc.http('POST', '/authorization/relations', { body: { subject: 'Team:mid', relation: 'owner', resource: 'Team:low' } });
    await svc.http('POST', '/authorization/relations', { body: { subject: 'Team:low', relation: 'owner', resource: 'Doc:d' } });
    const s = await connect(token);
    s.send({ type: 'subscribe', topic: 'decisions', id: 'a', items: [{ action: 'read', resource: 'Doc:d' }, { action: 'read', resource: 'Doc:other' }] });
    const subscribed = await s.next((m) => m.type === 'subscribed');
    expect(subscribed).toMatchObject({ id: 'a', items: [{ action: 'read', resource: 'Doc:d', allowed: false }, { action: 'read', resource: 'Doc:other', allowed: false }] });

    const join = await svc.http('POST', '/authorization/relations', { body: { subject: `User:${userId}`, relation: 'member', resource: 'Team:top' } });
    const granted = await s.next((m) => m.type === 'decision', 1000);
    expect(granted).toMatchObject({ id: 'a', action: 'read', resource: 'Doc:d', allowed: true, revision: join.body.revision });

    const link = (await svc.http('GET', '/authorization/relations?search=team:mid%23owner@team:low')).body.relations[0];
    const cut = await svc.http('DELETE', `/authorization/relations/${encodeURIComponent(link._id)}`);
    const revoked = await s.next((m) => m.type === 'decision', 1000);
    expect(revoked).toMatchObject({ resource: 'Doc:d', allowed: false, revision: cut.body.revision });
    // Nothing flipped for the other item, and nothing more is sent after an unsubscribe.
    s.send({ type: 'unsubscribe', id: 'a' });
    await s.next((m) => m.type === 'unsubscribed');
    await svc.http('POST', '/authorization/relations', { body: { subject: 'Team:mid', relation: 'owner', resource: 'Team:low' } });
    await new Promise((r) => setTimeout(r, 500));
    expect(s.got.filter((m) => m.type === 'decision')).toEqual([]);
    s.ws.close();
  });
});

describe('realtime socket: subscriptions and freshness', () => {
  it('refuses subscriptions past the cap with a clear error, and malformed messages with VALIDATION_FAILED', async () => {
    const { token } = await login('greedy@example.com');
    const s = await connect(token);
    const cap = svc.config.SOCKET_MAX_SUBSCRIPTIONS;
    let accepted = 0;
    let refused = 0;
    // One message at a time: a client with more than 64 messages waiting is closed (tested below).
    for (let i = 0; i < 10_000 / 100; i++) {
      s.send({ type: 'subscribe', topic: 'decisions', id: `s${i}`, items: Array.from({ length: 100 }, (_, j) => ({ action: 'read', resource: `Doc:n${i}-${j}` })) });
      const m = await s.next((x) => x.type === 'subscribed' || x.type === 'error', 30_000);
      if (m.type === 'subscribed') accepted += m.items.length;
      else {
        expect(m).toMatchObject({ code: 'SUBSCRIPTION_LIMIT' });
        refused++;
      }
    }
    expect(accepted).toBe(cap);
    expect(refused).toBe(100 - cap / 100);
    // Room again after an unsubscribe; then the items themselves are validated by the route.
    s.send({ type: 'unsubscribe', id: 's0' });
    await s.next((m) => m.type === 'unsubscribed');
    s.send({ type: 'subscribe', topic: 'decisions', id: 'bad', items: [{ action: 'read', resource: 'no-colon' }] });
    expect(await s.next((m) => m.id === 'bad')).toMatchObject({ type: 'error', code: 'VALIDATION_FAILED' });
    s.send({ type: 'shout' });
    expect(await s.next((m) => m.type === 'error')).toMatchObject({ code: 'VALIDATION_FAILED' });
    s.ws.send('not json');
    expect(await s.next((m) => m.type === 'error')).toMatchObject({ code: 'BAD_REQUEST' });
    s.ws.close();
  });

  it('answers a subscription at least as fresh as the revision it names, after a bulk write still being indexed', async () => {
    const { userId, token } = await login('fresh-sub@example.com');
    const s = await connect(token);
    // The update the subscription asks about comes last in the batch, behind 300 others, so it is indexed last.
    const written = await svc.http('POST', '/authorization/relations/write', { body: { updates: [
      ...Array.from({ length: 300 }, (_, i) => ({ operation: 'create', subject: `User:${userId}`, relation: 'owner', resource: `Doc:filler${i}` })),
      { operation: 'create', subject: `User:${userId}`, relation: 'owner', resource: 'Doc:fresh' },
    ] } });
    expect(written.status).toBe(200);
    const revision = written.body.revision as number;
    s.send({ type: 'subscribe', topic: 'decisions', id: 'f', consistency: 'at_least_as_fresh', revision, items: [{ action: 'read', resource: 'Doc:fresh' }] });
    const subscribed = await s.next((m) => m.id === 'f', 10_000);
    expect(subscribed).toMatchObject({ type: 'subscribed', items: [{ action: 'read', resource: 'Doc:fresh', allowed: true }] });
    expect(subscribed.items[0].revision).toBeGreaterThanOrEqual(revision);
    // The fields are the decisions route's: validated there, as over REST.
    s.send({ type: 'subscribe', topic: 'decisions', id: 'g', consistency: 'eventually', revision: -1, items: [{ action: 'read', resource: 'Doc:fresh' }] });
    const refused = await s.next((m) => m.id === 'g');
    expect(refused).toMatchObject({ type: 'error', code: 'VALIDATION_FAILED' });
    s.ws.close();
  });

  it('holds a subscription at a revision the index has not applied, while pings and other messages answer meanwhile', async () => {
    const { userId, token } = await login('held-sub@example.com');
    const s = await openSocket(svc.socket, token);
    const release = await holdIndexLeases(svc);
    let released = false;
    try {
      const w = await svc.http('POST', '/authorization/relations/many', { body: { subject: `User:${userId}`, relation: 'owner', resources: ['Doc:held-sub'] } });
      expect(w.status).toBe(200);
      const item = [{ action: 'read', resource: 'Doc:held-sub' }];
      s.send({ type: 'subscribe', topic: 'decisions', id: 'fresh', items: item, consistency: 'at_least_as_fresh', revision: w.body.revision });
      s.send({ type: 'ping' });
      s.send({ type: 'subscribe', topic: 'decisions', id: 'now', items: item });
      // The ping and the subscription without a revision answer while the first still waits, from the index as it is.
      await s.next((m) => m.type === 'pong');
      expect(await s.next((m) => m.id === 'now')).toMatchObject({ type: 'subscribed', items: [{ allowed: false }] });
      expect(s.got.some((m) => m.id === 'fresh')).toBe(false);
      await release();
      released = true;
      expect(await s.next((m) => m.id === 'fresh')).toMatchObject({ type: 'subscribed', items: [{ allowed: true }] });
    } finally {
      if (!released) await release();
      s.ws.close();
    }
  });
});

describe('realtime socket: logout and slow readers', () => {
  it('closes the socket of a token that logged out', async () => {
    const { token } = await login('leaver@example.com');
    const s = await connect(token);
    const closed = new Promise<number>((resolve) => s.ws.once('close', (code) => resolve(code)));
    const out = await fetch(`${svc.client}/authentication/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(out.status).toBe(200);
    expect(await closed).toBe(4001);
    expect(await refusedWith({ authorization: `Bearer ${token}` })).toBe(401);
  });

  it('closes a client that never reads before the server holds more than its send bound', async () => {
    const { token } = await login('sleepy@example.com');
    const s = await connect(token);
    const closed = new Promise<number>((resolve) => s.ws.once('close', (code) => resolve(code)));
    const raw = (s.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    const before = process.memoryUsage().rss;
    // Each of these is answered with an error of about 200 bytes: 80,000 of them, 16 MB, that the client never reads.
    // Sent in small bursts, so the server is never more than 64 messages behind (that closes with 1008, tested next).
    const message = JSON.stringify({ type: 'nope', id: 'x'.repeat(100) });
    for (let i = 0; i < 80_000 && s.ws.readyState === WebSocket.OPEN; i++) {
      s.ws.send(message);
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 3000));
    const grown = (process.memoryUsage().rss - before) / 2 ** 20;
    raw.resume();
    const code = await closed;
    // The close frame waits behind what was queued; a client this slow may see the connection cut (1006) instead.
    expect([4008, 1006]).toContain(code);
    expect(s.got.filter((m) => m.type === 'error').length).toBeLessThan(80_000);
    process.stderr.write(`slow consumer: server RSS grew ${grown.toFixed(1)} MiB while it was not reading\n`);
  });
});

describe('decision watch across processes', () => {
  it('a socket on one process hears a flip caused by a write through another', async () => {
    // The same deployment: the same stores and secrets, another process (its own bus member and decision watch).
    const other = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }), CLIENT_JWT_SECRET: svc.config.CLIENT_JWT_SECRET }, { wipe: false });
    try {
      const { userId, token } = await login('elsewhere@example.com');
      const ws = new WebSocket(other.socket, { headers: { authorization: `Bearer ${token}` } });
      const got: Array<Record<string, unknown>> = [];
      ws.on('message', (d) => got.push(JSON.parse(String(d))));
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      ws.send(JSON.stringify({ type: 'subscribe', topic: 'decisions', id: 'x', items: [{ action: 'read', resource: 'Doc:across' }] }));
      for (let i = 0; i < 100 && !got.some((m) => m.type === 'subscribed'); i++) await new Promise((r) => setTimeout(r, 20));
      // The write goes through the first process; the second hears of it on the bus.
      await svc.http('POST', '/authorization/relations', { body: { subject: `User:${userId}`, relation: 'owner', resource: 'Doc:across' } });
      for (let i = 0; i < 50 && !got.some((m) => m.type === 'decision'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(got.find((m) => m.type === 'decision')).toMatchObject({ id: 'x', resource: 'Doc:across', allowed: true });
      ws.close();
    } finally {
      await other.stop();
    }
  });
});

describe('realtime socket, flooding', () => {
  it('closes a client that sends faster than its messages are handled (1008) rather than queueing them', async () => {
    const { token } = await login('flood@example.com');
    const s = await connect(token);
    const closed = new Promise<number>((resolve) => s.ws.once('close', (code) => resolve(code)));
    const message = JSON.stringify({ type: 'subscribe', topic: 'decisions', id: 'f', items: [{ action: 'read', resource: 'Doc:f' }] });
    for (let i = 0; i < 5000 && s.ws.readyState === WebSocket.OPEN; i++) s.ws.send(message);
    expect(await closed).toBe(1008);
  });
});

describe('admin feed socket', () => {
  it('follows the change feed over a WebSocket on the admin surface, with admin credentials', async () => {
    const url = svc.admin.replace('http', 'ws') + '/authorization/changes?after=0';
    expect(await refusedWith({}, url)).toBe(401);
    const ws = new WebSocket(url, { headers: { masterkey: svc.config.MASTER_KEY } });
    const tuples: string[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { type: string; changes: Array<{ tuple?: string }> };
        tuples.push(...m.changes.map((c) => c.tuple ?? ''));
        if (tuples.includes('User:feed#owner@Doc:feed')) resolve();
      })
    );
    await new Promise((r) => ws.once('open', r));
    await svc.http('POST', '/authorization/relations', { body: { subject: 'User:feed', relation: 'owner', resource: 'Doc:feed' } });
    await done;
    expect(tuples).toContain('Team:low#owner@Doc:d');
    ws.close();
  });
});
