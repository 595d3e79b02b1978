// The epoch contract: a value every process reads, new with each bump, even after the store lost its data. Twin and Redis.
import { randomUUID } from 'node:crypto';
import type { Epoch } from '../../src/stores/ports/epoch.js';

export function epochContract(make: () => Promise<{ epoch(name: string): Epoch; loseAll(): Promise<void>; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeAll(async () => {
    h = await make();
  });
  afterAll(async () => {
    await h.cleanup();
  });

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

    it('never gives a value again after the store lost its data: a process that cached one sees the change', async () => {
      const e = h.epoch(randomUUID());
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        await e.bump();
        seen.push((await e.read())!);
      }
      await h.loseAll();
      expect(await e.read()).toBe('0');
      for (let i = 0; i < 3; i++) {
        await e.bump();
        seen.push((await e.read())!);
      }
      expect(new Set(seen).size).toBe(6);
    });
  });
}
