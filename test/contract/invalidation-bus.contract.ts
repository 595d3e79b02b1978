// The invalidation bus contract: a publish resolves only once every other live member applied it or cannot serve
// local state; a member that died is waited out; a lost member set makes every member reset. Twin and Redis.
import { BusStopped, type Invalidation, type InvalidationBusMember } from '../../src/stores/ports/invalidation-bus.js';
import { until } from './wait.js';

/**
 * The lease the harnesses give their members: the protocol is the same at any lease, and the tests that wait one out
 * (a new member set, a dead member) wait 0.6 s rather than the services' 2 s.
 */
export const BUS_LEASE_MS = 600;

export interface BusHarness {
  /** A new process's membership of the bus (not started), on the store the harness shares between them. */
  member(apply: (inv: Invalidation) => void, reset: () => void): InvalidationBusMember;
  /** The member's process dies: it hears and renews nothing more, and does not leave. */
  crash(member: InvalidationBusMember): Promise<void>;
  /** The store loses everything (a Redis restarted without its data). */
  loseAll(): Promise<void>;
  cleanup(): Promise<void>;
}

/** A member and what reached it. */
function watched(h: BusHarness) {
  const got: Invalidation[] = [];
  const resets = { n: 0 };
  const bus = h.member((inv) => got.push(inv), () => {
    resets.n++;
  });
  return { bus, got, resets };
}

export function busContract(make: () => Promise<BusHarness>) {
  let h: BusHarness;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('invalidation bus', () => {
    it('trusts local state only while started', async () => {
      const a = watched(h);
      expect(a.bus.trusted()).toBe(false);
      await a.bus.start();
      expect(await until(() => a.bus.trusted())).toBe(true);
      await a.bus.stop();
      expect(a.bus.trusted()).toBe(false);
    });

    it('applies a publish here and in every other member before it resolves, with all it carries', async () => {
      const [a, b, c] = [watched(h), watched(h), watched(h)];
      await Promise.all([a.bus.start(), b.bus.start(), c.bus.start()]);
      const inv: Invalidation = { keys: ['Doc:d', 'User:u'], structure: false, revision: 12, reindex: { ended: [3] } };
      await a.bus.publish(inv);
      for (const m of [a, b, c]) expect(m.got).toEqual([inv]);
      await b.bus.publish({ keys: [], structure: true });
      expect(a.got).toEqual([inv, { keys: [], structure: true }]);
      expect(c.got).toHaveLength(2);
      await Promise.all([a.bus.stop(), b.bus.stop(), c.bus.stop()]);
    });

    it('a stopped member hears nothing more, and publishes do not wait for it', async () => {
      const [a, b] = [watched(h), watched(h)];
      await Promise.all([a.bus.start(), b.bus.start()]);
      await b.bus.stop();
      await a.bus.publish({ keys: ['x'], structure: false });
      expect(b.got).toEqual([]);
      await a.bus.stop();
    });

    // Found as a timer left open after a service stopped: a re-index's last publish, on a member that had left, slept a
    // whole lease (it is not in the member set, so the set looked new) and kept the process alive.
    it('a publish after stop rejects at once with BusStopped and reaches no other member', async () => {
      const [a, b] = [watched(h), watched(h)];
      await Promise.all([a.bus.start(), b.bus.start()]);
      await a.bus.stop();
      await expect(a.bus.publish({ keys: ['x'], structure: false })).rejects.toBeInstanceOf(BusStopped);
      expect(b.got).toEqual([]);
      await b.bus.stop();
    });

    it('a member that died is waited out: once the publish resolves it can no longer serve what it held', async () => {
      const [a, b, dead] = [watched(h), watched(h), watched(h)];
      await Promise.all([a.bus.start(), b.bus.start(), dead.bus.start()]);
      expect(await until(() => dead.bus.trusted())).toBe(true);
      await h.crash(dead.bus);
      const inv = { keys: ['Doc:d'], structure: false };
      await a.bus.publish(inv);
      expect(b.got).toEqual([inv]);
      expect(dead.got.length > 0 || !dead.bus.trusted()).toBe(true);
      // Evicted, it is not waited for again.
      await a.bus.publish(inv);
      expect(b.got).toEqual([inv, inv]);
      await Promise.all([a.bus.stop(), b.bus.stop(), dead.bus.stop()]);
    });

    it('when the store loses the member set, every member resets, joins again and hears the next publish', async () => {
      const [a, b] = [watched(h), watched(h)];
      await Promise.all([a.bus.start(), b.bus.start()]);
      expect(await until(() => a.bus.trusted() && b.bus.trusted())).toBe(true);
      // Joining counts as coming back from an eviction (a member drops everything first), so count from here.
      const before = [a.resets.n, b.resets.n] as const;
      await h.loseAll();
      expect(await until(() => a.resets.n > before[0] && b.resets.n > before[1])).toBe(true);
      expect(await until(() => a.bus.trusted() && b.bus.trusted())).toBe(true);
      const inv = { keys: ['k'], structure: false };
      await b.bus.publish(inv);
      expect(a.got).toEqual([inv]);
      await Promise.all([a.bus.stop(), b.bus.stop()]);
    });
  });
}
