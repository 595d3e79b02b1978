// Client reads at least as fresh as a revision really wait for it: the index is held back (its leases taken), a grant
// is written, and each read without the revision answers from the index as it is while the read with it waits.
import { holdIndexLeases } from '../support/index-leases.js';
import { clientAccount } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }) });
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { owner: ['User'] }, permissions: { read: ['owner'] } } })).status).toBe(200);
});
afterAll(async () => {
  await svc?.stop();
});

const login = async (email: string) => {
  const { id, token } = await clientAccount(svc, email);
  return { userId: id, token };
};

/** Grants `owner` on `resource` while the index is held, runs `reads` (given the write's revision), then lets the index go. */
async function whileHeld(userId: string, resource: string, reads: (revision: number) => Promise<() => Promise<void>>) {
  const release = await holdIndexLeases(svc);
  let released = false;
  try {
    const w = await svc.http('POST', '/authorization/relations/many', { body: { subject: `User:${userId}`, relation: 'owner', resources: [resource] } });
    expect(w.status).toBe(200);
    const after = await reads(Number(w.body.revision));
    await release();
    released = true;
    await after();
  } finally {
    if (!released) await release();
  }
}

it('check, decisions and role wait for the revision they name; without it they answer from the index as it is', async () => {
  const { userId, token } = await login('fresh-reads@example.com');
  const as = (method: string, path: string, body?: unknown) => svc.http(method, svc.client + path, { body, headers: { authorization: `Bearer ${token}` } });
  await whileHeld(userId, 'Doc:held', async (revision) => {
    const fresh = `consistency=at_least_as_fresh&revision=${revision}`;
    const item = [{ action: 'read', resource: 'Doc:held' }];
    const waiting = Promise.all([
      as('GET', `/authorization/check?action=read&resource=Doc:held&${fresh}`),
      as('POST', '/authorization/decisions', { items: item, consistency: 'at_least_as_fresh', revision }),
      as('GET', `/authorization/role/Doc:held?${fresh}`),
    ]);
    const check = await as('GET', '/authorization/check?action=read&resource=Doc:held');
    expect([check.status, check.body.allowed]).toEqual([200, false]);
    const decisions = await as('POST', '/authorization/decisions', { items: item });
    expect([decisions.status, decisions.body.items[0].allowed]).toEqual([200, false]);
    return async () => {
      const [c, d, r] = await waiting;
      expect([c.status, c.body.allowed]).toEqual([200, true]);
      expect([d.status, d.body.items[0].allowed]).toEqual([200, true]);
      expect([r.status, r.body.roles]).toEqual([200, ['owner']]);
    };
  });
});
