// The decision cache contract: a decision is found only under the stamp it was stored with, and bumps move the stamps
// of exactly what they name (objects, types, the structure). Twin and Redis.
import { randomUUID } from 'node:crypto';
import type { DecisionStore } from '../../src/stores/ports/decision-cache.js';

export function decisionStoreContract(make: () => Promise<{ store(): DecisionStore; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });
  const id = (type: string) => `${type}:${randomUUID()}`;

  describe('decision cache', () => {
    it('finds a decision stored under the current stamp, from every process, per (subject, action, object)', async () => {
      const [a, b] = [h.store(), h.store()];
      const [s, o] = [id('User'), id('Doc')];
      const first = await a.lookup(s, 'view', o);
      expect(first.hit).toBeNull();
      await a.put(s, 'view', o, true, first.stamp);
      await a.put(s, 'edit', o, false, first.stamp);
      expect(await b.lookup(s, 'view', o)).toEqual({ hit: true, stamp: first.stamp });
      expect(await b.lookup(s, 'edit', o)).toEqual({ hit: false, stamp: first.stamp });
      expect((await b.lookup(s, 'share', o)).hit).toBeNull();
    });

    it('a bump of the subject, the object or the structure changes the stamp and hides what was stored', async () => {
      const a = h.store();
      for (const bump of ['subject', 'object', 'structure'] as const) {
        const [s, o] = [id('User'), id('Doc')];
        const before = await a.lookup(s, 'view', o);
        await a.put(s, 'view', o, true, before.stamp);
        const o2 = id('Doc');
        const other = await a.lookup(s, 'view', o2);
        await a.bump(bump === 'subject' ? [s] : bump === 'object' ? [o] : [], [], bump === 'structure');
        const after = await a.lookup(s, 'view', o);
        expect([bump, after.hit, after.stamp === before.stamp]).toEqual([bump, null, false]);
        // A decision stored under the old stamp stays hidden.
        await a.put(s, 'view', o, false, before.stamp);
        expect((await a.lookup(s, 'view', o)).hit).toBeNull();
        // Another object's decisions: untouched by a bump of this object only.
        expect([bump, (await a.lookup(s, 'view', o2)).stamp === other.stamp]).toEqual([bump, bump === 'object']);
      }
    });

    it('a type bump leaves decisions alone', async () => {
      const a = h.store();
      const [s, o] = [id('User'), id('Doc')];
      const before = await a.lookup(s, 'view', o);
      await a.put(s, 'view', o, true, before.stamp);
      await a.bump([], ['Doc'], false);
      expect(await a.lookup(s, 'view', o)).toEqual({ hit: true, stamp: before.stamp });
    });

    it('a list stamp: none on a store that has not started its epochs, then one that moves with the subject, the type and the structure', async () => {
      const [a, b] = [h.store(), h.store()];
      const s = id('User');
      expect(await a.listStamp(s, 'Doc')).toBeNull();
      const stamp = await b.listStamp(s, 'Doc');
      expect(stamp).not.toBeNull();
      expect(await a.listStamp(s, 'Doc')).toBe(stamp);
      await a.bump([id('Doc')], ['Folder'], false);
      expect(await a.listStamp(s, 'Doc')).toBe(stamp);
      const seen = new Set([stamp]);
      for (const [objects, types, structure] of [[[s], [], false], [[], ['Doc'], false], [[], [], true]] as Array<[string[], string[], boolean]>) {
        await b.bump(objects, types, structure);
        const next = await a.listStamp(s, 'Doc');
        expect(seen.has(next)).toBe(false);
        seen.add(next);
      }
    });
  });
}
