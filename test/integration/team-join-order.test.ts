// Team join (issue 19): the member tuple is committed before the invitation is used up, so a join that fails in
// between can be sent again with the same invitation; a used invitation joins nobody again.
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token: string, body?: unknown) => svc.http(method, `${svc.client}${path}`, { body, headers: { authorization: `Bearer ${token}` } });

async function account(email: string) {
  expect((await svc.http('POST', `${svc.client}/authentication/local/new`, { body: { email, password: 'correct horse' }, headers: {} })).status).toBe(201);
  const r = await svc.http('POST', `${svc.client}/authentication/local`, { body: { email, password: 'correct horse' }, headers: {} });
  return { id: r.body.userId as string, token: r.body.accessToken as string };
}

it('a join whose member tuple cannot be written leaves the invitation usable; once used it joins nobody again', async () => {
  const alice = await account('alice@join.example');
  const bob = await account('bob@join.example');
  const team = (await client('POST', '/authentication/teams', alice.token, { name: 'Core' })).body._id as string;
  const inv = await client('POST', `/authentication/teams/${team}/invite`, alice.token, { email: 'bob@join.example' });
  expect(inv.status).toBe(201);
  const join = () => client('POST', '/authentication/teams/join', bob.token, { invitationToken: inv.body.invitationToken });

  // The tuple write fails: Team no longer declares `member` (the write is refused after the invitation was found valid).
  const teamDef = (await svc.http('GET', '/authorization/resources/Team')).body;
  const { member: _m, ...relations } = teamDef.relations as Record<string, string[]>;
  const permissions = Object.fromEntries(Object.entries(teamDef.permissions as Record<string, string[]>)
    .map(([p, via]): [string, string[]] => [p, via.filter((v) => v !== 'member' && !v.startsWith('member->'))]).filter(([, via]) => via.length));
  // Team is built in: replacing it needs its next version.
  expect((await svc.http('PATCH', '/authorization/resources/Team', { body: { relations, permissions, version: teamDef.version + 1 } })).status).toBe(200);
  const failed = await join();
  expect(failed.status).toBe(422);
  expect((await client('GET', `/authentication/teams/${team}/members`, alice.token)).body.count).toBe(1);

  // Repaired: the same invitation works, exactly once.
  expect(
    (await svc.http('PATCH', '/authorization/resources/Team', { body: { relations: teamDef.relations, permissions: teamDef.permissions, version: teamDef.version + 2 } })).status,
  ).toBe(200);
  const joined = await join();
  expect(joined.status).toBe(200);
  expect(joined.body).toMatchObject({ team: { _id: team }, roles: ['member'] });
  const members = (await client('GET', `/authentication/teams/${team}/members`, alice.token)).body;
  expect(members.members.map((m: { email: string; roles: string[] }) => [m.email, m.roles])).toContainEqual(['bob@join.example', ['member']]);

  // Used: joining again is refused and changes nothing, even after bob was removed from the team.
  const again = await join();
  expect(again.status).toBe(404);
  const tuple = (await svc.http('GET', `/authorization/relations?search=${encodeURIComponent(`User:${bob.id}#member@Team:${team}`)}`)).body;
  expect(tuple.count).toBe(1);
  expect((await svc.http('DELETE', `/authorization/relations/${tuple.relations[0]._id}`)).status).toBe(200);
  expect((await join()).status).toBe(404);
  expect((await client('GET', `/authentication/teams/${team}/members`, alice.token)).body.count).toBe(1);
});
