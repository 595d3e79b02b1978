// The invalidation bus on a real Redis: a publish returns only after every live member applied it or lost its lease.
import { Redis } from 'ioredis';
import type { Invalidation } from '../../src/stores/ports/invalidation-bus.js';
import { establishBus, InvalidationBus } from '../../src/stores/redis/invalidation-bus.js';

let redis: Redis;
const buses: InvalidationBus[] = [];
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!);
});
afterAll(async () => {
  await Promise.all(buses.map((b) => b.stop()));
  redis.disconnect();
});

/** Polls `done` every 20 ms, two seconds at most. */
const until = async (done: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await done()); i++) await new Promise((r) => setTimeout(r, 20));
};
const redisNow = async () => {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
};

/** A member set that has existed for long: no lost set's members can still trust anything. */
const established = (prefix: string) => establishBus(redis, prefix);

async function member(prefix: string) {
  const seen: Invalidation[] = [];
  let resets = 0;
  const bus = new InvalidationBus(redis, prefix, (inv) => seen.push(inv), () => {
    resets++;
  });
  buses.push(bus);
  await bus.start();
  return { bus, seen, resets: () => resets };
}

it('a publish returns after every other live member applied it, and the publisher applied it first', async () => {
  await established('test:bus1');
  const [a, b, c] = [await member('test:bus1'), await member('test:bus1'), await member('test:bus1')];
  expect(a.bus.trusted() && b.bus.trusted() && c.bus.trusted()).toBe(true);
  for (let i = 0; i < 20; i++) {
    await a.bus.publish({ keys: [`Doc:${i}`], structure: i % 5 === 0 });
    expect(a.seen.length).toBe(i + 1);
    expect(b.seen.at(-1)).toEqual({ keys: [`Doc:${i}`], structure: i % 5 === 0 });
    expect(c.seen.at(-1)).toEqual({ keys: [`Doc:${i}`], structure: i % 5 === 0 });
  }
  expect(b.seen.length).toBe(20);
});

it('a member that never acknowledges is evicted, and the publish waits its lease out', async () => {
  await established('test:bus2');
  const a = await member('test:bus2');
  // A frozen process: a lease that runs 1.5 s more, and nobody listening under its name.
  const until = (await redisNow()) + 1500;
  await redis.zadd('test:bus2:bus:members', until, 'frozen');
  await a.bus.publish({ keys: ['Doc:x'], structure: false });
  expect(await redisNow()).toBeGreaterThanOrEqual(until);
  expect(await redis.zscore('test:bus2:bus:members', 'frozen')).toBeNull();
  // The publisher itself stays a member.
  expect(await redis.zscore('test:bus2:bus:members', a.bus.id)).not.toBeNull();
});

it('an evicted member drops everything at its next renewal, then joins again', async () => {
  const b = await member('test:bus3');
  const before = b.resets();
  await redis.zrem('test:bus3:bus:members', b.bus.id);
  await until(() => b.resets() !== before);
  expect(b.resets()).toBeGreaterThan(before);
  await until(() => b.bus.trusted());
  expect(b.bus.trusted()).toBe(true);
  expect(await redis.zscore('test:bus3:bus:members', b.bus.id)).not.toBeNull();
});

it('a member set lost with Redis data: the publisher waits a whole lease, and members rejoin after dropping everything', async () => {
  await established('test:bus4');
  const [a, b] = [await member('test:bus4'), await member('test:bus4')];
  const before = b.resets();
  await redis.del('test:bus4:bus:members');
  const start = await redisNow();
  await a.bus.publish({ keys: ['Doc:y'], structure: false });
  // Nobody can have trusted state older than the loss by then: a lease (2 s) has passed.
  expect(await redisNow()).toBeGreaterThanOrEqual(start + 2000);
  await until(() => b.resets() !== before);
  expect(b.resets()).toBeGreaterThan(before);
});

it("a writer that rejoined a lost member set before its first write still waits out the lost members' leases", async () => {
  await established('test:bus5');
  const [a, b] = [await member('test:bus5'), await member('test:bus5')];
  const before = b.resets();
  await redis.del('test:bus5:bus:members');
  const lostAt = await redisNow();
  // Both rejoin at their next renewal (within half a second), before the write.
  await until(async () => (await redis.zscore('test:bus5:bus:members', a.bus.id)) !== null);
  expect(await redis.zscore('test:bus5:bus:members', a.bus.id)).not.toBeNull();
  await a.bus.publish({ keys: ['Doc:z'], structure: false });
  expect(await redisNow()).toBeGreaterThanOrEqual(lostAt + 2000);
  await until(() => b.resets() !== before);
  expect(b.resets()).toBeGreaterThan(before);
});
