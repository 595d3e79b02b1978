// The epoch contract: a counter every process reads, that changes with each bump. Twin and Redis.
import { randomUUID } from 'node:crypto';
import type { Epoch } from '../../src/stores/ports/epoch.js';

export function epochContract(make: () => Promise<{ epoch(name: string): Epoch; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeAll(async () => { h = await make(); });
  afterAll(async () => { await h.cleanup(); });

  describe('epoch', () => {
    it('reads "0" before any bump, and a new value after each, the same from every process', async () => {
      const n = randomUUID();
      const a = h.epoch(n);
      const b = h.epoch(n);
      expect(await a.read()).toBe('0');
      await a.bump();
      const one = await b.read();
      expect(one).not.toBe('0');
      await b.bump();
      const two = await a.read();
      expect(two).not.toBe(one);
      expect(two).not.toBe('0');
      expect(await h.epoch(randomUUID()).read()).toBe('0');
    });
  });
}
