// The rate counter contract: at most `max` points per window per key, shared by every process, free again after
// the window; the wait it answers is within the window. Twin and Redis.
import { randomUUID } from 'node:crypto';
import type { RateCounter } from '../../src/stores/ports/rate-limits.js';
import { pause } from './wait.js';

export function rateCounterContract(make: () => Promise<{ counter(): RateCounter; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('rate counter', () => {
    it('grants max points per window across processes, then answers how long until points are free', async () => {
      const [a, b] = [h.counter(), h.counter()];
      const name = randomUUID();
      expect(await a.take(name, 3, 60_000, 'ip1')).toBeNull();
      expect(await b.take(name, 3, 60_000, 'ip1')).toBeNull();
      expect(await a.take(name, 3, 60_000, 'ip1')).toBeNull();
      const wait = await b.take(name, 3, 60_000, 'ip1');
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60_000);
      // Other keys, other buckets and other limits count apart.
      expect(await a.take(name, 3, 60_000, 'ip2')).toBeNull();
      expect(await a.take(randomUUID(), 3, 60_000, 'ip1')).toBeNull();
      expect(await a.take(name, 4, 60_000, 'ip1')).toBeNull();
    });

    it('takes several points at once, and refuses a take larger than what is left', async () => {
      const a = h.counter();
      const name = randomUUID();
      expect(await a.take(name, 5, 60_000, 'k', 4)).toBeNull();
      expect(await a.take(name, 5, 60_000, 'k', 2)).not.toBeNull();
      expect(await a.take(name, 5, 60_000, 'k2', 6)).not.toBeNull();
    });

    it('frees the points once the window has passed', async () => {
      const a = h.counter();
      const name = randomUUID();
      expect(await a.take(name, 1, 1000, 'k')).toBeNull();
      expect(await a.take(name, 1, 1000, 'k')).not.toBeNull();
      await pause(1200);
      expect(await a.take(name, 1, 1000, 'k')).toBeNull();
    });
  });
}
