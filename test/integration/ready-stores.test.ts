// What /ready says of each store on the real servers: mongo, neo4j and redis pass with a duration, and a Redis that
// is down (or a required module missing) makes it 503 (the rest of health: foundation.test.ts).
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ READY_CHECK_REDIS: '1' });
});
afterAll(async () => {
  await svc?.stop();
});

it('GET /ready reports mongo, neo4j and redis, each with a duration', async () => {
  const r = await svc.http('GET', '/ready', { headers: {} });
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('ready');
  for (const name of ['mongo', 'neo4j', 'redis']) {
    expect(r.body.checks[name]).toEqual({ status: 'pass', durationMs: expect.any(Number) });
  }
});
it('GET /ready is 503 when a required module is missing or Redis is down', async () => {
  const other = await startService({ READY_REQUIRED_MODULES: 'core,nosuchmodule', READY_CHECK_REDIS: '1', REDIS_URL: 'redis://127.0.0.1:1' }, { wipe: false });
  try {
    const r = await other.http('GET', '/ready', { headers: {} });
    expect(r.status).toBe(503);
    expect(r.body.status).toBe('not-ready');
    expect(r.body.checks['module:nosuchmodule'].status).toBe('fail');
    expect(r.body.checks['module:core'].status).toBe('pass');
    expect(r.body.checks.redis.status).toBe('fail');
    expect(r.body.checks.mongo.status).toBe('pass');
    expect((await other.http('GET', '/ready?legacy=true', { headers: {} })).text).toBe('not ready');
  } finally {
    await other.stop();
  }
});
