// /ready over HTTP: a store that is down is named, its driver's error text stays in the log; calls are rate limited
// per caller; /live and the healthy report are as the contract has them.
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const lines: string[] = [];
beforeAll(async () => {
  svc = await startService({
    READY_CHECK_REDIS: '1',
    REDIS_URL: 'redis://127.0.0.1:1',
    TRUST_PROXY: 'true',
    ROUTER_RATE_LIMITS: JSON.stringify({ routes: { 'GET /ready': { windowMs: 60_000, max: 5 } } }),
  }, { logLines: lines });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const ready = (from: string, path = '/ready') => svc.http('GET', path, { headers: { 'x-forwarded-for': from } });

it('names the store that is down, without its error, and logs why', async () => {
  const r = await ready('10.0.0.1');
  expect(r.status).toBe(503);
  expect(r.body).toEqual({
    status: 'not-ready',
    checks: { mongo: { status: 'pass', durationMs: expect.any(Number) }, neo4j: { status: 'pass', durationMs: expect.any(Number) },
      redis: { status: 'fail', durationMs: expect.any(Number), message: 'down' } },
  });
  expect((await ready('10.0.0.1', '/ready?legacy=true')).text).toBe('not ready');
  const logged = lines.map((l) => JSON.parse(l) as { check?: string; reason?: string; msg: string }).filter((l) => l.msg === 'readiness check fails');
  expect(logged).toEqual([expect.objectContaining({ check: 'redis', reason: expect.any(String) })]);
  const reason = logged[0]!.reason!;
  expect(reason).not.toBe('down');
  expect(r.text).not.toContain(reason);
  expect(r.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|redis:/i);
});

it('is rate limited per caller, with Retry-After', async () => {
  const seen = [];
  for (let i = 0; i < 5; i++) seen.push((await ready('10.0.0.2')).status);
  expect(seen).toEqual([503, 503, 503, 503, 503]);
  const limited = await ready('10.0.0.2');
  expect(limited.status).toBe(429);
  expect(limited.body.code).toBe('RATE_LIMITED');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  // Another caller (a load balancer) is not held back by this one.
  expect((await ready('10.0.0.3')).status).toBe(503);
  // /live stays shallow and free.
  for (let i = 0; i < 10; i++) expect((await svc.http('GET', '/live', { headers: { 'x-forwarded-for': '10.0.0.2' } })).status).toBe(200);
});
