// Chat over HTTP and the realtime socket with a real `ws` client: every route with and without a token, who may read,
// edit and delete, events in a room, `left` for a removed member (and one removed from the team holding the room), two processes.
import { WebSocket } from 'ws';
import { holdIndexLeases } from '../support/index-leases.js';
import { clientAccount } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';
import { openSocket, type Msg } from '../support/socket-client.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }), READY_REQUIRED_MODULES: 'chat' });
});
afterAll(async () => {
  await svc?.stop();
});

const login = async (email: string) => {
  const { id, token } = await clientAccount(svc, email);
  return { userId: id, token };
};

/** A client call as `token` (none: without credentials). */
async function as(token: string | null, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const r = await svc.http(method, svc.client + path, { body, headers });
  return r;
}

/** A connected socket and every message it got, with a wait for the next one that matches, and a room join. */
async function connect(token: string, url = svc.socket) {
  const socket = await openSocket(url, token);
  const join = async (room: string) => {
    socket.send({ type: 'join', room });
    return socket.next((m) => m.room === room && (m.type === 'joined' || m.type === 'error'));
  };
  return { ...socket, join };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('chat over HTTP: without a token', () => {
  it('answers 401 on every chat route without a token', async () => {
    for (const [method, path, body] of [
      ['POST', '/chat/rooms', { name: 'x', participants: [] }],
      ['GET', '/chat/rooms'],
      ['GET', '/chat/rooms/r'],
      ['POST', '/chat/rooms/r/participants', { participants: ['u'] }],
      ['DELETE', '/chat/rooms/r/participants/u'],
      ['DELETE', '/chat/rooms/r'],
      ['POST', '/chat/messages', { roomId: 'r', message: 'hi' }],
      ['GET', '/chat/messages?roomId=r'],
      ['PATCH', '/chat/messages/m', { message: 'x' }],
      ['DELETE', '/chat/messages/m'],
    ] as const) {
      const r = await as(null, method, path, body);
      expect({ route: `${method} ${path}`, status: r.status }).toEqual({ route: `${method} ${path}`, status: 401 });
    }
  });
});

describe('chat over HTTP: rooms and messages', () => {
  it('creates rooms, lists those the caller may read, and keeps messages from non-members (404)', async () => {
    const alice = await login('alice@chat.example');
    const bob = await login('bob@chat.example');
    const eve = await login('eve@chat.example');
    const created = await as(alice.token, 'POST', '/chat/rooms', { name: 'general', participants: [bob.userId] });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
    expect(created.body).toMatchObject({ name: 'general', participants: [alice.userId, bob.userId] });
    const roomId = created.body._id as string;
    await as(alice.token, 'POST', '/chat/rooms', { name: 'private', participants: [] });
    expect((await as(alice.token, 'POST', '/chat/rooms', { name: 'x', participants: ['no-such-user'] })).status).toBe(400);
    expect((await as(alice.token, 'POST', '/chat/rooms', { name: 'x', participants: [], subject: 'User:x' })).status).toBe(400);

    const aliceRooms = await as(alice.token, 'GET', '/chat/rooms');
    expect(aliceRooms.body.count).toBe(2);
    expect((await as(alice.token, 'GET', '/chat/rooms?limit=1&skip=1')).body).toMatchObject({ count: 2, rooms: [expect.any(Object)] });
    expect((await as(bob.token, 'GET', '/chat/rooms')).body).toMatchObject({ count: 1, rooms: [{ _id: roomId, name: 'general' }] });
    expect((await as(eve.token, 'GET', '/chat/rooms')).body).toEqual({ rooms: [], count: 0 });
    expect((await as(bob.token, 'GET', `/chat/rooms/${roomId}`)).status).toBe(200);
    expect((await as(eve.token, 'GET', `/chat/rooms/${roomId}`)).status).toBe(404);

    const sent: string[] = [];
    for (const [who, text] of [[alice, 'one'], [bob, 'two'], [alice, 'three']] as const) {
      const r = await as(who.token, 'POST', '/chat/messages', { roomId, message: text });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ roomId, senderId: who.userId, message: text, createdAt: expect.any(String) });
      expect(r.body.updatedAt).toBeUndefined();
      sent.push(r.body._id);
    }
    const page = await as(bob.token, 'GET', `/chat/messages?roomId=${roomId}&limit=2`);
    expect(page.body.count).toBe(3);
    expect(page.body.messages.map((m: Msg) => m.message)).toEqual(['three', 'two']);
    expect((await as(bob.token, 'GET', `/chat/messages?roomId=${roomId}&skip=2`)).body.messages.map((m: Msg) => m.message)).toEqual(['one']);

    // A non-member reads nothing and writes nothing; the room and its messages do not exist for it.
    expect((await as(eve.token, 'GET', `/chat/messages?roomId=${roomId}`)).status).toBe(404);
    expect((await as(eve.token, 'POST', '/chat/messages', { roomId, message: 'let me in' })).status).toBe(404);
    expect((await as(eve.token, 'PATCH', `/chat/messages/${sent[0]}`, { message: 'x' })).status).toBe(404);
    expect((await as(eve.token, 'DELETE', `/chat/messages/${sent[0]}`)).status).toBe(404);
    expect((await as(eve.token, 'POST', `/chat/rooms/${roomId}/participants`, { participants: [eve.userId] })).status).toBe(404);
    expect((await as(eve.token, 'DELETE', `/chat/rooms/${roomId}`)).status).toBe(404);

    // Edit: the author only. Delete: the author, or the room's owner.
    expect((await as(bob.token, 'PATCH', `/chat/messages/${sent[0]}`, { message: 'not mine' })).status).toBe(403);
    const edited = await as(alice.token, 'PATCH', `/chat/messages/${sent[0]}`, { message: 'one, edited' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ _id: sent[0], message: 'one, edited', updatedAt: expect.any(String) });
    expect((await as(bob.token, 'DELETE', `/chat/messages/${sent[2]}`)).status).toBe(403);
    expect((await as(bob.token, 'DELETE', `/chat/messages/${sent[1]}`)).body).toEqual({ deleted: true, _id: sent[1] });
    const third = await as(bob.token, 'POST', '/chat/messages', { roomId, message: 'four' });
    expect((await as(alice.token, 'DELETE', `/chat/messages/${third.body._id}`)).status).toBe(200);
    expect((await as(alice.token, 'DELETE', `/chat/messages/${third.body._id}`)).status).toBe(404);
    expect((await as(bob.token, 'GET', `/chat/messages?roomId=${roomId}`)).body.count).toBe(2);

    // Messages past chat.maxMessageBytes are refused (413), as are empty ones (400).
    expect((await as(alice.token, 'POST', '/chat/messages', { roomId, message: 'é'.repeat(2049) })).status).toBe(413);
    expect((await as(alice.token, 'POST', '/chat/messages', { roomId, message: '' })).status).toBe(400);

    // Membership: only the owner invites; a member may leave; a removed member reads nothing.
    expect((await as(bob.token, 'POST', `/chat/rooms/${roomId}/participants`, { participants: [eve.userId] })).status).toBe(403);
    const invited = await as(alice.token, 'POST', `/chat/rooms/${roomId}/participants`, { participants: [eve.userId] });
    expect(invited.body.participants).toEqual([alice.userId, bob.userId, eve.userId]);
    expect((await as(eve.token, 'GET', `/chat/messages?roomId=${roomId}`)).body.count).toBe(2);
    expect((await as(bob.token, 'DELETE', `/chat/rooms/${roomId}/participants/${eve.userId}`)).status).toBe(403);
    expect((await as(eve.token, 'DELETE', `/chat/rooms/${roomId}/participants/${eve.userId}`)).body.participants).toEqual([alice.userId, bob.userId]);
    expect((await as(eve.token, 'GET', `/chat/messages?roomId=${roomId}`)).status).toBe(404);

    // Deleting the room: the owner only; its messages and tuples go with it.
    expect((await as(bob.token, 'DELETE', `/chat/rooms/${roomId}`)).status).toBe(403);
    expect((await as(alice.token, 'DELETE', `/chat/rooms/${roomId}`)).body).toEqual({ deleted: true, _id: roomId, messages: 2 });
    expect((await as(bob.token, 'GET', `/chat/messages?roomId=${roomId}`)).status).toBe(404);
    expect((await as(alice.token, 'GET', '/chat/rooms')).body.count).toBe(1);
  });
});

describe('chat over HTTP: freshness and team rooms', () => {
  it('lists rooms at least as fresh as a revision: waits for a membership the index has not applied yet', async () => {
    const [owner, guest] = [await login('fresh-owner@example.com'), await login('fresh-guest@example.com')];
    const created = await as(owner.token, 'POST', '/chat/rooms', { name: 'fresh', participants: [] });
    expect(created.status).toBe(201);
    const release = await holdIndexLeases(svc);
    let released = false;
    try {
      const w = await svc.http('POST', '/authorization/relations/many', {
        body: { subject: `User:${guest.userId}`, relation: 'member', resources: [`ChatRoom:${created.body._id}`] },
      });
      expect(w.status).toBe(200);
      const fresh = as(guest.token, 'GET', `/chat/rooms?consistency=at_least_as_fresh&revision=${w.body.revision}`);
      // Without the revision the read does not wait, and the index does not have the membership yet.
      expect((await as(guest.token, 'GET', '/chat/rooms')).body).toEqual({ rooms: [], count: 0 });
      await release();
      released = true;
      const r = await fresh;
      expect([r.status, r.body.count, r.body.rooms[0]?._id]).toEqual([200, 1, created.body._id]);
    } finally {
      if (!released) await release();
    }
  });

  it('makes a team-scoped room readable by the team, and /ready requires the chat module', async () => {
    const owner = await login('team-owner@chat.example');
    const other = await login('team-outsider@chat.example');
    await svc.http('POST', '/authorization/relations', { body: { subject: `User:${owner.userId}`, relation: 'owner', resource: 'Team:crew' } });
    expect((await as(other.token, 'POST', '/chat/rooms?scope=Team:crew', { name: 'crew', participants: [] })).status).toBe(403);
    const room = await as(owner.token, 'POST', '/chat/rooms?scope=Team:crew', { name: 'crew', participants: [] });
    expect(room.status).toBe(201);
    expect(room.body).toMatchObject({ scope: 'Team:crew', participants: [] });
    expect((await as(owner.token, 'GET', '/chat/rooms?scope=Team:crew')).body.count).toBe(1);
    const ready = await svc.http('GET', '/ready');
    expect(ready.body.checks['module:chat']).toMatchObject({ status: 'pass' });
  });
});

describe('chat on the realtime socket: relaying and refusals', () => {
  it('joins rooms the caller may read, relays messages, edits, deletions, typing and reads', async () => {
    const ann = await login('ann@chat.example');
    const ben = await login('ben@chat.example');
    const out = await login('out@chat.example');
    const roomId = (await as(ann.token, 'POST', '/chat/rooms', { name: 'sock', participants: [ben.userId] })).body._id as string;
    const a = await connect(ann.token);
    const b = await connect(ben.token);
    const o = await connect(out.token);
    expect(await a.join(roomId)).toEqual({ type: 'joined', room: roomId });
    expect(await b.join(roomId)).toEqual({ type: 'joined', room: roomId });
    expect(await o.join(roomId)).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    expect(await o.join('no-such-room')).toMatchObject({ type: 'error', code: 'FORBIDDEN' });

    a.send({ type: 'send', room: roomId, message: 'hello' });
    const mine = await a.next((m) => m.type === 'message');
    expect(mine).toMatchObject({ room: roomId, message: { roomId, senderId: ann.userId, message: 'hello' } });
    expect(await b.next((m) => m.type === 'message')).toEqual(mine);
    const rest = await as(ben.token, 'POST', '/chat/messages', { roomId, message: 'over rest' });
    expect((await a.next((m) => m.type === 'message')).message).toEqual(rest.body);

    await as(ann.token, 'PATCH', `/chat/messages/${mine.message._id}`, { message: 'hello!' });
    expect(await b.next((m) => m.type === 'messageEdited')).toMatchObject({ room: roomId, message: { _id: mine.message._id, message: 'hello!' } });
    await as(ben.token, 'DELETE', `/chat/messages/${rest.body._id}`);
    expect(await a.next((m) => m.type === 'messageDeleted')).toEqual({ type: 'messageDeleted', room: roomId, messageId: rest.body._id });

    b.send({ type: 'typing', room: roomId });
    expect(await a.next((m) => m.type === 'typing')).toEqual({ type: 'typing', room: roomId, userId: ben.userId });
    b.send({ type: 'read', room: roomId, messageId: mine.message._id });
    expect(await a.next((m) => m.type === 'read')).toEqual({ type: 'read', room: roomId, messageId: mine.message._id, userId: ben.userId });
    // Not echoed to the sender; typing in a room not joined is refused; a message too long is refused as over REST.
    await pause(200);
    expect(b.got.filter((m) => m.type === 'typing' || m.type === 'read')).toEqual([]);
    o.send({ type: 'typing', room: roomId, id: 't' });
    expect(await o.next((m) => m.type === 'error')).toMatchObject({ id: 't', code: 'FORBIDDEN' });
    o.send({ type: 'send', room: roomId, message: 'sneak' });
    expect(await o.next((m) => m.type === 'error')).toMatchObject({ code: 'NOT_FOUND' });
    a.send({ type: 'send', room: roomId, message: 'x'.repeat(5000) });
    expect(await a.next((m) => m.type === 'error')).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(o.got.filter((m) => m.type === 'message')).toEqual([]);

    // Leaving stops the events.
    b.send({ type: 'leave', room: roomId });
    expect(await b.next((m) => m.type === 'left')).toEqual({ type: 'left', room: roomId, reason: 'left' });
    await as(ann.token, 'POST', '/chat/messages', { roomId, message: 'after leave' });
    await a.next((m) => m.type === 'message');
    await pause(200);
    expect(b.got.filter((m) => m.type === 'message' && m.message.message === 'after leave')).toEqual([]);
    for (const s of [a, b, o]) s.ws.close();
  });

  it('answers malformed and hostile chat messages with a catalog error each, never INTERNAL', async () => {
    const u = await login('hostile@chat.example');
    const s = await connect(u.token);
    const frames: unknown[] = [
      { type: 'join' },
      { type: 'join', room: 123 },
      { type: 'join', room: 'x'.repeat(10_000) },
      { type: 'join', room: 'a\u0000b' },
      { type: 'join', room: '__proto__' },
      { type: 'join', room: { $ne: null } },
      { type: 'join', room: 'r', extra: 1 },
      { type: 'send', room: 'r' },
      { type: 'send', room: 'r', message: { $gt: '' } },
      { type: 'send', room: 'no-such-room', message: 'hi' },
      { type: 'send', room: 'r', message: 'x'.repeat(100_000) },
      { type: 'send', room: 'r', message: '\u0000' },
      { type: 'typing', room: 'not-joined' },
      { type: 'read', room: 'not-joined' },
      { type: 'read', room: 'r', messageId: 'x'.repeat(500) },
      { type: 'leave', room: 'not-joined' },
      { type: 'leave', room: 'constructor' },
    ];
    for (const f of frames) {
      s.send(f);
      const m = await s.next(() => true);
      expect({ frame: f, type: m.type }).toEqual({ frame: f, type: 'error' });
      expect(['VALIDATION_FAILED', 'FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE']).toContain(m.code);
    }
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    s.ws.close();
  });
});

describe('chat on the realtime socket: bounds and leaving', () => {
  it('bounds the rooms one socket joins (config chat.maxRoomsPerSocket)', async () => {
    const u = await login('joiner@chat.example');
    const rooms: string[] = [];
    for (let i = 0; i < 3; i++) rooms.push((await as(u.token, 'POST', '/chat/rooms', { name: `r${i}`, participants: [] })).body._id);
    expect((await svc.http('PATCH', '/config/chat', { body: { maxRoomsPerSocket: 2 } })).status).toBe(200);
    try {
      const s = await connect(u.token);
      expect((await s.join(rooms[0]!)).type).toBe('joined');
      expect((await s.join(rooms[1]!)).type).toBe('joined');
      expect(await s.join(rooms[2]!)).toMatchObject({ type: 'error', code: 'SUBSCRIPTION_LIMIT' });
      s.send({ type: 'leave', room: rooms[0] });
      await s.next((m) => m.type === 'left');
      expect((await s.join(rooms[2]!)).type).toBe('joined');
      s.ws.close();
    } finally {
      await svc.http('PATCH', '/config/chat', { body: { maxRoomsPerSocket: null } });
    }
  });

  it('sends `left` within a second to a member removed from the room, and nothing more', async () => {
    const owner = await login('kick-owner@chat.example');
    const gone = await login('kicked@chat.example');
    const roomId = (await as(owner.token, 'POST', '/chat/rooms', { name: 'kick', participants: [gone.userId] })).body._id as string;
    const o = await connect(owner.token);
    const g = await connect(gone.token);
    await o.join(roomId);
    expect((await g.join(roomId)).type).toBe('joined');
    const t0 = Date.now();
    expect((await as(owner.token, 'DELETE', `/chat/rooms/${roomId}/participants/${gone.userId}`)).status).toBe(200);
    expect(await g.next((m) => m.type === 'left', 1000)).toEqual({ type: 'left', room: roomId, reason: 'access revoked' });
    process.stderr.write(`chat: removed member got left ${Date.now() - t0} ms after the removal was sent\n`);
    await as(owner.token, 'POST', '/chat/messages', { roomId, message: 'without you' });
    await o.next((m) => m.type === 'message');
    await pause(300);
    expect(g.got.filter((m) => m.type === 'message')).toEqual([]);
    expect(await g.join(roomId)).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    o.ws.close();
    g.ws.close();
  });

  it('sends `left` within a second to a user removed from the team that holds the room', async () => {
    const lead = await login('lead@chat.example');
    const mate = await login('mate@chat.example');
    await svc.http('POST', '/authorization/relations', { body: { subject: `User:${lead.userId}`, relation: 'owner', resource: 'Team:squad' } });
    await svc.http('POST', '/authorization/relations', { body: { subject: `User:${mate.userId}`, relation: 'member', resource: 'Team:squad' } });
    const roomId = (await as(lead.token, 'POST', '/chat/rooms?scope=Team:squad', { name: 'squad', participants: [] })).body._id as string;
    const m = await connect(mate.token);
    expect((await m.join(roomId)).type).toBe('joined');
    const l = await connect(lead.token);
    await l.join(roomId);
    l.send({ type: 'send', room: roomId, message: 'team talk' });
    expect((await m.next((x) => x.type === 'message')).message.message).toBe('team talk');
    const link = (await svc.http('GET', `/authorization/relations?search=${encodeURIComponent(`user:${mate.userId}#member@team:squad`)}`)).body.relations[0];
    const t0 = Date.now();
    await svc.http('DELETE', `/authorization/relations/${encodeURIComponent(link._id)}`);
    expect(await m.next((x) => x.type === 'left', 1000)).toEqual({ type: 'left', room: roomId, reason: 'access revoked' });
    process.stderr.write(`chat: user removed from the team got left ${Date.now() - t0} ms after the removal was sent\n`);
    l.send({ type: 'send', room: roomId, message: 'after' });
    await l.next((x) => x.type === 'message' && x.message.message === 'after');
    await pause(300);
    expect(m.got.filter((x) => x.type === 'message')).toEqual([]);
    m.ws.close();
    l.ws.close();
  });
});

describe('chat participants named as tuples name them', () => {
  it('takes User:<id> for the bare user id, on create, invite and removal, and keeps bare ids', async () => {
    const host = await login('tuple-host@chat.example');
    const guest = await login('tuple-guest@chat.example');
    const third = await login('tuple-third@chat.example');
    const room = await as(host.token, 'POST', '/chat/rooms', { name: 'typed', participants: [`User:${guest.userId}`, `User:${host.userId}`] });
    expect([room.status, room.body.participants]).toEqual([201, [host.userId, guest.userId]]);
    const roomId = room.body._id as string;
    expect((await as(guest.token, 'GET', `/chat/rooms/${roomId}`)).status).toBe(200);
    const invited = await as(host.token, 'POST', `/chat/rooms/${roomId}/participants`, { participants: [`User:${third.userId}`, third.userId] });
    expect([invited.status, invited.body.participants]).toEqual([200, [host.userId, guest.userId, third.userId]]);
    const removed = await as(host.token, 'DELETE', `/chat/rooms/${roomId}/participants/${encodeURIComponent(`User:${third.userId}`)}`);
    expect([removed.status, removed.body.participants]).toEqual([200, [host.userId, guest.userId]]);
    expect((await as(third.token, 'GET', `/chat/rooms/${roomId}`)).status).toBe(404);
    const unknown = await as(host.token, 'POST', '/chat/rooms', { name: 'x', participants: ['User:nobody-here'] });
    expect([unknown.status, unknown.body.message]).toEqual([400, 'No such participant: nobody-here']);
  });
});

describe('chat with a team as participant', () => {
  it("lets the team's members in, and sends `left` to one removed from the team", async () => {
    const host = await login('pod-host@chat.example');
    const mate = await login('pod-mate@chat.example');
    await svc.http('POST', '/authorization/relations', { body: { subject: `User:${mate.userId}`, relation: 'member', resource: 'Team:pod' } });
    // A team the caller may not read is refused as a participant.
    expect((await as(host.token, 'POST', '/chat/rooms', { name: 'pod', participants: ['Team:pod'] })).status).toBe(400);
    await svc.http('POST', '/authorization/relations', { body: { subject: `User:${host.userId}`, relation: 'readAll', resource: 'Team:pod' } });
    const room = await as(host.token, 'POST', '/chat/rooms', { name: 'pod', participants: ['Team:pod'] });
    expect(room.body.participants).toEqual([host.userId, 'Team:pod']);
    const roomId = room.body._id as string;
    expect((await as(mate.token, 'GET', '/chat/rooms')).body.rooms.map((r: Msg) => r._id)).toEqual([roomId]);
    const m = await connect(mate.token);
    expect((await m.join(roomId)).type).toBe('joined');
    const link = (await svc.http('GET', `/authorization/relations?search=${encodeURIComponent(`user:${mate.userId}#member@team:pod`)}`)).body.relations[0];
    await svc.http('DELETE', `/authorization/relations/${encodeURIComponent(link._id)}`);
    expect(await m.next((x) => x.type === 'left', 1000)).toEqual({ type: 'left', room: roomId, reason: 'access revoked' });
    expect((await as(mate.token, 'GET', `/chat/messages?roomId=${roomId}`)).status).toBe(404);
    // The owner removes the team itself.
    expect((await as(host.token, 'DELETE', `/chat/rooms/${roomId}/participants/Team:pod`)).body.participants).toEqual([host.userId]);
    m.ws.close();
  });
});

describe('chat across processes', () => {
  it('fans events out to sockets on another process, and its socket gets `left` for a removal made here', async () => {
    const other = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }), CLIENT_JWT_SECRET: svc.config.CLIENT_JWT_SECRET }, { wipe: false });
    try {
      const host = await login('host@chat.example');
      const guest = await login('guest@chat.example');
      const roomId = (await as(host.token, 'POST', '/chat/rooms', { name: 'across', participants: [guest.userId] })).body._id as string;
      const g = await connect(guest.token, other.socket);
      expect((await g.join(roomId)).type).toBe('joined');
      const h = await connect(host.token);
      await h.join(roomId);

      h.send({ type: 'send', room: roomId, message: 'from process one' });
      expect((await g.next((m) => m.type === 'message', 2000)).message).toMatchObject({ message: 'from process one', senderId: host.userId });
      h.send({ type: 'typing', room: roomId });
      expect(await g.next((m) => m.type === 'typing', 2000)).toEqual({ type: 'typing', room: roomId, userId: host.userId });
      // And back: a message through the other process reaches this one's socket.
      g.send({ type: 'send', room: roomId, message: 'from process two' });
      expect((await h.next((m) => m.type === 'message' && m.message.message === 'from process two', 2000)).message.senderId).toBe(guest.userId);

      await as(host.token, 'DELETE', `/chat/rooms/${roomId}/participants/${guest.userId}`);
      expect(await g.next((m) => m.type === 'left', 1000)).toEqual({ type: 'left', room: roomId, reason: 'access revoked' });
      g.ws.close();
      h.ws.close();
    } finally {
      await other.stop();
    }
  });
});
