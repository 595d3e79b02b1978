// The token deny list contract: a denied id is denied for every process until its time, then forgotten. Twin and Redis.
import { randomUUID } from 'node:crypto';
import type { TokenDenyList } from '../../src/stores/ports/token-deny-list.js';
import { until } from './wait.js';

export function denyListContract(make: () => Promise<{ list(): TokenDenyList; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('token deny list', () => {
    it('denies an id until its time, seen by every process; any one of several ids denied is enough', async () => {
      const [a, b] = [h.list(), h.list()];
      const [x, y] = [randomUUID(), randomUUID()];
      expect(await b.denied([x])).toBe(false);
      expect(await b.denied([])).toBe(false);
      await a.deny(x, new Date(Date.now() + 300));
      expect(await b.denied([x])).toBe(true);
      expect(await b.denied([y, x])).toBe(true);
      expect(await b.denied([y])).toBe(false);
      expect(await until(async () => !(await b.denied([x])), 5000)).toBe(true);
    });

    it('ignores an id whose time has passed already', async () => {
      const a = h.list();
      const x = randomUUID();
      await a.deny(x, new Date(Date.now() - 1000));
      expect(await a.denied([x])).toBe(false);
    });
  });
}
