// GET /metrics (Prometheus text) and the access log: latency per registered route, decisions and cache hits, index
// lag and queue depth; every request logged once, credentials redacted.
import { WebSocket } from 'ws';
import { startService, type TestService } from '../support/service.js';
import { openSocket } from '../support/socket-client.js';

let svc: TestService;
const lines: string[] = [];
beforeAll(async () => {
  svc = await startService({ LOG_LEVEL: 'info' }, { logLines: lines });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

it('counts requests per route, decisions with cache hits, and shows index lag and queue depth', async () => {
  await svc.http('POST', '/authorization/resources', { body: { name: 'Safe', relations: { holder: ['User'] }, permissions: { open: ['holder'] } } });
  await svc.http('POST', '/authorization/relations', { body: { subject: 'User:m', relation: 'holder', resource: 'Safe:s' } });
  // Settled first: the definitions the chat and storage modules register at start move the index structure on when
  // applied, which would make a cached decision stale between the checks below.
  await svc.http('GET', '/authorization/permissions/can?subject=User:m&permission=open&resource=Safe:other&consistency=fully_consistent');
  const counted = async (cached: boolean) =>
    Number(new RegExp(`authz_check_decisions_total\\{allowed="true",cached="${cached}"\\} (\\d+)`)
      .exec((await svc.http('GET', '/metrics')).text)?.[1] ?? 0);
  const before = { miss: await counted(false), hit: await counted(true) };
  for (let i = 0; i < 3; i++) expect((await svc.http('GET', '/authorization/permissions/can?subject=User:m&permission=open&resource=Safe:s')).body.allowed).toBe(true);
  expect({ miss: await counted(false) - before.miss, hit: await counted(true) - before.hit }).toEqual({ miss: 1, hit: 2 });
  const r = await svc.http('GET', '/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toContain('text/plain');
  const text = r.text;
  expect(text).toMatch(/authz_http_request_duration_seconds_count\{surface="admin",method="GET",route="\/authorization\/permissions\/can",status="200"\} 4/);
  expect(text).toMatch(/authz_index_lag_revisions \d+/);
  expect(text).toMatch(/authz_index_queue_depth \d+/);
  expect((await svc.http('GET', '/metrics', { headers: {} })).status).toBe(401);
});

it('logs each request once with its route and status, and never a credential', async () => {
  await svc.http('GET', '/authorization/permissions/can?subject=User:m&permission=open&resource=Safe:s', {
    headers: { masterkey: svc.config.MASTER_KEY, authorization: 'Bearer cdt_secretvalue' },
  });
  const access = lines.map((l) => JSON.parse(l) as { req?: { url?: string; headers?: Record<string, string> }; res?: { statusCode: number } })
    .filter((l) => l.req?.url?.startsWith('/authorization/permissions/can'));
  expect(access.length).toBeGreaterThanOrEqual(4);
  expect(access.every((l) => typeof l.res?.statusCode === 'number')).toBe(true);
  const all = lines.join('\n');
  expect(all).not.toContain(svc.config.MASTER_KEY);
  expect(all).not.toContain('cdt_secretvalue');
  expect(all).toContain('[redacted]');
});

it('logs and counts a socket upgrade refused before any route, on both surfaces', async () => {
  const refused = (url: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        ws.terminate();
      });
      ws.once('open', () => {
        ws.close();
        reject(new Error(`${url} was not refused`));
      });
      ws.once('error', () => undefined);
    });
  expect(await refused(svc.socket, { authorization: 'Bearer not-a-token' })).toBe(401);
  expect(await refused(`${svc.admin.replace('http', 'ws')}/nowhere`, { masterkey: svc.config.MASTER_KEY })).toBe(404);
  const logged = lines.map((l) => JSON.parse(l) as { transport?: string; route?: string; outcome?: string; res?: { statusCode: number } })
    .filter((l) => l.transport === 'socket').map((l) => [l.route, l.outcome, l.res?.statusCode]);
  expect(logged).toEqual(expect.arrayContaining([['GET /realtime', 'UNAUTHENTICATED', 401], ['GET (no socket here)', 'ROUTE_NOT_FOUND', 404]]));
  const text = (await svc.http('GET', '/metrics')).text;
  expect(text).toMatch(/authz_calls_total\{surface="client",route="GET \/realtime",transport="socket",outcome="UNAUTHENTICATED"\} 1/);
  expect(text).toMatch(/authz_calls_total\{surface="admin",route="GET \(no socket here\)",transport="socket",outcome="ROUTE_NOT_FOUND"\} 1/);
  expect(lines.join('\n')).not.toContain('not-a-token');
});

it('logs and counts a socket message refused before any route', async () => {
  const call = (path: string) =>
    fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'm@example.com', password: 'correct horse' }) });
  await call('/authentication/local/new');
  const { accessToken } = await (await call('/authentication/local')).json() as { accessToken: string };
  const s = await openSocket(svc.socket, accessToken);
  s.ws.send('not json');
  s.send({ type: 'unsubscribe', id: 'never' });
  expect((await s.next((m) => m.type === 'error')).code).toBe('BAD_REQUEST');
  expect((await s.next((m) => m.type === 'error')).code).toBe('NOT_FOUND');
  s.ws.close();
  const logged = lines.map((l) => JSON.parse(l) as { transport?: string; route?: string; outcome?: string })
    .filter((l) => l.transport === 'socket' && l.route === 'POST /realtime').map((l) => l.outcome);
  expect(logged).toEqual(['BAD_REQUEST', 'NOT_FOUND']);
  const text = (await svc.http('GET', '/metrics')).text;
  expect(text).toMatch(/authz_calls_total\{surface="client",route="POST \/realtime",transport="socket",outcome="BAD_REQUEST"\} 1/);
});
