// The checks are served by the lean route table in front of Express (test/unit/lean-routes.test.ts shows which
// requests it takes). The same request through Express (which still holds the route; a trailing slash reaches it)
// must get the same answer: status, body, content type, ETag (none), Retry-After, and the same access log and metrics.
import { holdIndexLeases } from '../support/index-leases.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const lines: string[] = [];
let userToken: string;
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ routes: { 'GET /authorization/check': { windowMs: 60_000, max: 12 } } }), LOG_LEVEL: 'info' }, {
    logLines: lines,
  });
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } } })).status).toBe(200);
  expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:ann', relation: 'viewer', resource: 'Doc:d1' } })).status).toBe(201);
  expect((await svc.http('POST', `${svc.client}/authentication/local/new`, { body: { email: 'cat@example.com', password: 'password123' }, headers: {} })).status).toBe(201);
  const login = await svc.http('POST', `${svc.client}/authentication/local`, { body: { email: 'cat@example.com', password: 'password123' }, headers: {} });
  userToken = login.body.accessToken;
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

async function get(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after'), etag: res.headers.get('etag'), body: await res.json() };
}

it('answers admin checks as Express would, for good and bad input and credentials', async () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['subject=User:ann&permission=read&resource=Doc:d1', svc.asAdmin],
    ['subject=User:bob&permission=read&resource=Doc:d1', svc.asAdmin],
    ['subject=User:ann&permission=read&resource=Doc:d1&consistency=fully_consistent', svc.asAdmin],
    ['subject=User:ann&permission=read', svc.asAdmin],
    ['subject=User:ann&permission=read&resource=nocolon', svc.asAdmin],
    ['subject=User:ann&permission=read&resource=Nope:x', svc.asAdmin],
    ['subject=User:ann&permission=write&resource=Doc:d1', svc.asAdmin],
    ['subject=User:ann&subject=User:bob&permission=read&resource=Doc:d1', svc.asAdmin],
    ['subject=User:ann&permission=read&resource=Doc:d1&extra=1', svc.asAdmin],
    ['subject[$ne]=x&permission=read&resource=Doc:d1', svc.asAdmin],
    ['subject=User:ann&permission=read&resource=Doc:d1', {}],
    ['subject=User:ann&permission=read&resource=Doc:d1', { masterkey: 'wrong-key-of-some-length' }],
  ];
  for (const [query, headers] of cases) {
    const lean = await get(`${svc.admin}/authorization/permissions/can?${query}`, headers);
    const viaExpress = await get(`${svc.admin}/authorization/permissions/can/?${query}`, headers);
    expect({ query, ...lean }).toEqual({ query, ...viaExpress });
  }
  expect((await get(`${svc.admin}/authorization/permissions/can?subject=User:ann&permission=read&resource=Doc:d1`, svc.asAdmin)).body).toEqual({ allowed: true });
});

it('answers client checks as Express would, rate limits included, and logs and counts them', async () => {
  const auth = { authorization: `Bearer ${userToken}` };
  const pairs = [];
  for (const query of ['action=read&resource=Doc:d1', 'action=read', 'action=read&resource=Doc:d1&scope=Team:nope']) {
    pairs.push([await get(`${svc.client}/authorization/check?${query}`, auth), await get(`${svc.client}/authorization/check/?${query}`, auth)] as const);
  }
  pairs.push(
    [await get(`${svc.client}/authorization/check?action=read&resource=Doc:d1`, {}), await get(`${svc.client}/authorization/check/?action=read&resource=Doc:d1`, {})] as const,
  );
  for (const [lean, viaExpress] of pairs) expect(lean).toEqual(viaExpress);
  // Both paths count against the one limit of the route (12 a minute): 8 used, so 4 more, then 429 with Retry-After.
  const more = await Promise.all(Array.from({ length: 6 }, () => get(`${svc.client}/authorization/check?action=read&resource=Doc:d1`, auth)));
  expect(more.filter((r) => r.status === 200)).toHaveLength(4);
  const limited = more.find((r) => r.status === 429)!;
  expect(limited.body.code).toBe('RATE_LIMITED');
  expect(Number(limited.retryAfter)).toBeGreaterThan(0);

  const metrics = await svc.http('GET', '/metrics');
  expect(metrics.text).toMatch(/authz_http_request_duration_seconds_count\{[^}]*route="\/authorization\/check"[^}]*status="429"[^}]*\} [1-9]/);
  const logged = lines.map((l) => JSON.parse(l) as { req?: { url?: string; headers?: Record<string, string> }; res?: { statusCode?: number } })
    .filter((l) => l.req?.url?.startsWith('/authorization/check?'));
  expect(logged.length).toBeGreaterThanOrEqual(10);
  expect(logged.every((l) => !JSON.stringify(l).includes(userToken))).toBe(true);
});

it('below info, logs only failed requests, through the lean table and Express alike', async () => {
  await svc.stop();
  const quiet: string[] = [];
  svc = await startService({ LOG_LEVEL: 'warn', FRESHNESS_WAIT_MS: '1500' }, { logLines: quiet });
  const ok = await get(`${svc.admin}/authorization/permissions/can?subject=User:ann&permission=read&resource=Team:t`, svc.asAdmin);
  expect(ok.status).toBe(200);
  // A revision the index will not reach within FRESHNESS_WAIT_MS (its leases held): 503 INDEX_BEHIND, once through each path.
  const release = await holdIndexLeases(svc, 'all', 40_000);
  try {
    const w = await fetch(`${svc.admin}/authorization/relations/many`, { method: 'POST', headers: { ...svc.asAdmin, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'User:held', relation: 'member', resources: ['Team:t'] }) });
    expect(w.status).toBe(200);
    const { revision } = await w.json() as { revision: number };
    for (const path of ['/authorization/permissions/can', '/authorization/permissions/can/']) {
      const behind = await get(`${svc.admin}${path}?subject=User:ann&permission=read&resource=Team:t&consistency=at_least_as_fresh&revision=${revision}`, svc.asAdmin);
      expect(behind.status).toBe(503);
    }
  } finally {
    await release();
  }
  const access = quiet.map((l) => JSON.parse(l) as { level: number; req?: { url?: string }; res?: { statusCode?: number } }).filter((l) => l.req?.url);
  expect(access.map((l) => [l.level, l.res?.statusCode])).toEqual([[40, 503], [40, 503]]);
  expect(quiet.join('\n')).not.toContain(svc.config.MASTER_KEY);
}, 60_000);
