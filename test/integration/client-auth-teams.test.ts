// The client surface: registration, tokens (rotation, reuse, logout), teams and invitations, /check and /role.
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
// Many accounts from one address: registration's default limit (20/min per IP) is raised here.
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, o: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) =>
  svc.http(method, `${svc.client}${path}`, { body: o.body, headers: o.headers ?? (o.token ? { authorization: `Bearer ${o.token}` } : {}) });

async function account(email: string) {
  const reg = await client('POST', '/authentication/local/new', { body: { email, password: 'correct horse' } });
  expect(reg.status).toBe(201);
  const login = await client('POST', '/authentication/local', { body: { email, password: 'correct horse' } });
  expect(login.status).toBe(200);
  return { id: reg.body.user._id as string, ...(login.body as { accessToken: string; refreshToken: string }) };
}

describe('authentication: accounts and sign-in', () => {
  it('registers without returning tokens, and refuses a taken email and bad input with 4xx', async () => {
    const r = await client('POST', '/authentication/local/new', { body: { email: 'Reg@Example.com', password: 'long enough' } });
    expect(r.status).toBe(201);
    expect(r.body.user).toEqual({ _id: expect.any(String), email: 'reg@example.com', createdAt: expect.any(String) });
    expect(JSON.stringify(r.body)).not.toMatch(/token|password|hash/i);
    expect((await client('POST', '/authentication/local/new', { body: { email: 'reg@example.com', password: 'another one' } })).body.code).toBe('ALREADY_EXISTS');
    for (const body of [{ email: 'nope', password: 'long enough' }, { email: 'a@b.co', password: 'short' }, { email: 'a@b.co', password: 'long enough', role: 'admin' }]) {
      const bad = await client('POST', '/authentication/local/new', { body });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body).sort()).toEqual(['code', 'message']);
    }
  });

  it('answers a wrong password and an unknown user with the same 401', async () => {
    await account('same401@example.com');
    const wrong = await client('POST', '/authentication/local', { body: { email: 'same401@example.com', password: 'wrong password' } });
    const unknown = await client('POST', '/authentication/local', { body: { email: 'nobody@example.com', password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('knows the user by the access token, and keeps client and admin credentials apart', async () => {
    const a = await account('who@example.com');
    expect((await client('GET', '/authentication/user', { token: a.accessToken })).body.user.email).toBe('who@example.com');
    expect((await client('GET', '/authentication/user')).status).toBe(401);
    expect((await client('GET', '/authentication/user', { headers: svc.asAdmin })).status).toBe(401);
    const adminJwt = (await svc.http('POST', '/login', { body: { username: 'admin', password: 'test-admin-password' }, headers: {} })).body.token;
    expect((await client('GET', '/authentication/user', { token: adminJwt })).status).toBe(401);
    expect((await svc.http('GET', '/authorization/resources', { headers: { authorization: `Bearer ${a.accessToken}` } })).status).toBe(401);
  });
});

describe('authentication: refresh tokens and logout', () => {
  it('rotates refresh tokens, and a reused one revokes the whole login', async () => {
    const a = await account('rotate@example.com');
    const r1 = await client('POST', '/authentication/renew', { body: { refreshToken: a.refreshToken } });
    expect(r1.status).toBe(200);
    expect(r1.body.refreshToken).not.toBe(a.refreshToken);
    expect((await client('GET', '/authentication/user', { token: r1.body.accessToken })).status).toBe(200);
    const reuse = await client('POST', '/authentication/renew', { body: { refreshToken: a.refreshToken } });
    expect(reuse.status).toBe(401);
    // The token issued by the legitimate rotation dies with its family.
    expect((await client('POST', '/authentication/renew', { body: { refreshToken: r1.body.refreshToken } })).status).toBe(401);
    expect((await client('POST', '/authentication/renew', { body: { refreshToken: 'made-up' } })).status).toBe(401);
  });

  it('a reused refresh token also cuts off the access tokens of that login', async () => {
    const a = await account('stolen@example.com');
    const thief = await client('POST', '/authentication/renew', { body: { refreshToken: a.refreshToken } });
    expect((await client('GET', '/authentication/user', { token: thief.body.accessToken })).status).toBe(200);
    expect((await client('POST', '/authentication/renew', { body: { refreshToken: a.refreshToken } })).status).toBe(401);
    expect((await client('GET', '/authentication/user', { token: thief.body.accessToken })).status).toBe(401);
    expect((await client('GET', '/authentication/user', { token: a.accessToken })).status).toBe(401);
    // A fresh login is a new family and works.
    const again = await client('POST', '/authentication/local', { body: { email: 'stolen@example.com', password: 'correct horse' } });
    expect((await client('GET', '/authentication/user', { token: again.body.accessToken })).status).toBe(200);
  });

  it('refuses input the store cannot hold with a 400, and stores nothing', async () => {
    const nul = await client('POST', '/authentication/local/new', { body: { email: 'nul@example.com', password: 'long\u0000enough' } });
    expect(nul.status).toBe(400);
    expect((await client('POST', '/authentication/local', { body: { email: 'nul@example.com', password: 'longenough' } })).status).toBe(401);
    const a = await account('names@example.com');
    const bad = await client('POST', '/authentication/teams', { token: a.accessToken, body: { name: 'a\u0000b' } });
    expect(bad.status).toBe(400);
    expect((await client('GET', '/authentication/teams', { token: a.accessToken })).body.count).toBe(0);
    expect((await client('POST', '/authentication/teams', { token: a.accessToken, body: { name: 'x', parentTeam: 'Team:x' } })).status).toBe(400);
  });

  it('takes two concurrent renewals with one token as a reuse: the login ends, whichever pair was issued', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await account(`race${round}@example.com`);
      const both = await Promise.all([0, 1].map(() => client('POST', '/authentication/renew', { body: { refreshToken: a.refreshToken } })));
      expect(both.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      expect(both.every((r) => r.status === 200 || r.status === 401)).toBe(true);
      for (const issued of both.filter((r) => r.status === 200)) {
        expect((await client('POST', '/authentication/renew', { body: { refreshToken: issued.body.refreshToken } })).status).toBe(401);
        expect((await client('GET', '/authentication/user', { token: issued.body.accessToken })).status).toBe(401);
      }
      expect((await client('GET', '/authentication/user', { token: a.accessToken })).status).toBe(401);
    }
  });

  it('logout refuses the access token at once and ends the refresh token', async () => {
    const a = await account('bye@example.com');
    expect((await client('POST', '/authentication/logout', { token: a.accessToken })).status).toBe(200);
    expect((await client('GET', '/authentication/user', { token: a.accessToken })).status).toBe(401);
    expect((await client('POST', '/authentication/renew', { body: { refreshToken: a.refreshToken } })).status).toBe(401);
  });
});

describe('teams, invitations and client checks', () => {
  let alice: Awaited<ReturnType<typeof account>>;
  let bob: Awaited<ReturnType<typeof account>>;
  let carol: Awaited<ReturnType<typeof account>>;
  let team: string;
  let child: string;
  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([account('alice@example.com'), account('bob@example.com'), account('carol@example.com')]);
  });

  it('makes the creator owner, visible to can and to the list as soon as the call returns', async () => {
    const r = await client('POST', '/authentication/teams', { token: alice.accessToken, body: { name: 'Core' } });
    expect(r.status).toBe(201);
    team = r.body._id;
    const can = await svc.http('GET', `/authorization/permissions/can?subject=User:${alice.id}&permission=invite&resource=Team:${team}`);
    expect(can.body.allowed).toBe(true);
    expect((await client('GET', '/authentication/teams', { token: alice.accessToken })).body).toEqual({ teams: [expect.objectContaining({ _id: team, name: 'Core' })], count: 1 });
    expect((await client('GET', '/authentication/teams', { token: bob.accessToken })).body).toEqual({ teams: [], count: 0 });
  });

  it('invites by email: only with invite, only for that email, and once', async () => {
    expect((await client('POST', `/authentication/teams/${team}/invite`, { token: bob.accessToken, body: { email: 'bob@example.com' } })).status).toBe(403);
    const inv = await client('POST', `/authentication/teams/${team}/invite`, { token: alice.accessToken, body: { email: 'Bob@example.com' } });
    expect(inv.status).toBe(201);
    const token = inv.body.invitationToken as string;
    expect((await client('POST', '/authentication/teams/join', { token: carol.accessToken, body: { invitationToken: token } })).status).toBe(403);
    const joins = await Promise.all([0, 1].map(() => client('POST', '/authentication/teams/join', { token: bob.accessToken, body: { invitationToken: token } })));
    expect(joins.map((j) => j.status).sort()).toEqual([200, 404]);
    expect((await client('GET', '/authentication/teams', { token: bob.accessToken })).body.teams.map((t: { _id: string }) => t._id)).toEqual([team]);
  });

  it('lists members with their roles to those who may view them', async () => {
    const m = await client('GET', `/authentication/teams/${team}/members`, { token: bob.accessToken });
    expect(m.status).toBe(200);
    expect(m.body.count).toBe(2);
    expect(new Map(m.body.members.map((x: { email: string; roles: string[] }) => [x.email, x.roles])))
      .toEqual(new Map([['alice@example.com', ['owner']], ['bob@example.com', ['member']]]));
    expect((await client('GET', `/authentication/teams/${team}/members`, { token: carol.accessToken })).status).toBe(403);
  });

  it('sub-teams: the parent team owns them, members of the parent read them, only owners may create them', async () => {
    expect((await client('POST', '/authentication/teams', { token: bob.accessToken, body: { name: 'Nope', parentTeam: team } })).status).toBe(403);
    const r = await client('POST', '/authentication/teams', { token: alice.accessToken, body: { name: 'Child', parentTeam: team } });
    expect(r.status).toBe(201);
    child = r.body._id;
    expect((await client('GET', '/authentication/teams', { token: bob.accessToken })).body.count).toBe(2);
  });

  it('/authorization/check answers for the caller, or for a scope the caller may act for (else 403)', async () => {
    const check = (token: string, q: string) => client('GET', `/authorization/check?${q}`, { token });
    expect((await check(alice.accessToken, `action=edit&resource=Team:${team}`)).body).toEqual({ allowed: true });
    expect((await check(bob.accessToken, `action=edit&resource=Team:${team}`)).body).toEqual({ allowed: false });
    expect((await check(bob.accessToken, `action=read&resource=Team:${child}&scope=Team:${team}`)).body).toEqual({ allowed: true });
    expect((await check(carol.accessToken, `action=read&resource=Team:${child}&scope=Team:${team}`)).status).toBe(403);
    const sneaky = await check(carol.accessToken, `action=read&resource=Team:${team}&subject=User:${alice.id}`);
    expect(sneaky.status).toBe(400);
    expect((await check(bob.accessToken, 'action=read&resource=not-an-object')).status).toBe(400);
    expect((await client('GET', `/authorization/check?action=read&resource=Team:${team}`)).status).toBe(401);
  });

  it('/authorization/role lists direct relations of the caller or the scope', async () => {
    const role = (token: string, path: string) => client('GET', `/authorization/role/${path}`, { token });
    expect((await role(alice.accessToken, `Team:${team}`)).body).toEqual({ roles: ['owner'] });
    expect((await role(bob.accessToken, `Team:${team}`)).body).toEqual({ roles: ['member'] });
    expect((await role(bob.accessToken, `Team:${child}`)).body).toEqual({ roles: [] });
    expect((await role(bob.accessToken, `Team:${child}?scope=Team:${team}`)).body).toEqual({ roles: ['owner'] });
    expect((await role(carol.accessToken, `Team:${child}?scope=Team:${team}`)).status).toBe(403);
  });

  it('many users register, log in and join at once without a 5xx', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `crowd${i}@example.com`);
    const invites = await Promise.all(emails.map((email) => client('POST', `/authentication/teams/${team}/invite`, { token: alice.accessToken, body: { email } })));
    const results = await Promise.all(emails.map(async (email, i) => {
      const a = await account(email);
      return client('POST', '/authentication/teams/join', { token: a.accessToken, body: { invitationToken: invites[i]!.body.invitationToken } });
    }));
    expect(results.map((r) => r.status)).toEqual(emails.map(() => 200));
    expect((await client('GET', `/authentication/teams/${team}/members?limit=100`, { token: alice.accessToken })).body.count).toBe(14);
  });
});
