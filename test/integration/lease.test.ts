// The index lease in Redis: one holder at a time, and a holder learns when it lost the lease to another process.
import { Redis } from 'ioredis';
import { Lease } from '../../src/stores/redis/lease.js';

let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!);
});
afterAll(() => {
  redis.disconnect();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('is held by one process at a time and frees itself when its holder stops renewing', async () => {
  const a = new Lease(redis, 'test:lease:one', 600);
  const b = new Lease(redis, 'test:lease:one', 600);
  expect(await a.tryAcquire()).toBe(true);
  expect(await b.tryAcquire()).toBe(false);
  await pause(900); // a keeps renewing
  expect(a.held()).toBe(true);
  expect(await b.tryAcquire()).toBe(false);
  await a.release();
  expect(a.held()).toBe(false);
  expect(await b.tryAcquire()).toBe(true);
  await b.release();
});

it('tells its holder that another process took it over (a unit under it must be redone)', async () => {
  const a = new Lease(redis, 'test:lease:two', 600);
  expect(await a.tryAcquire()).toBe(true);
  // As if a's renewals had stalled past the time to live and another process acquired the key.
  await redis.set('test:lease:two', 'someone-else', 'PX', 5000);
  await pause(400); // the next renewal finds the key taken
  expect(a.held()).toBe(false);
  await a.release();
  expect(await redis.get('test:lease:two')).toBe('someone-else');
});
