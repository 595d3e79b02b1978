// The lease and heartbeat contract: one holder at a time, renewed while held, freed when its holder dies or releases,
// released only by its holder; heartbeats say which processes are alive. Run against the in-memory twin and Redis.
import { randomUUID } from 'node:crypto';
import type { Heartbeat, Lease } from '../../src/stores/ports/lease.js';
import { LeaseTimeout } from '../../src/stores/ports/lease.js';
import { pause, until } from './wait.js';

export interface LeaseHarness {
  /** A lease object as one process holds it: two calls with one name are two processes contending. */
  lease(name: string, ttlMs?: number): Lease;
  heartbeat(owner: string, ttlMs?: number): Heartbeat;
  cleanup(): Promise<void>;
}

/** A process that dies: its timers stop (both implementations keep them in these fields), nothing is released. */
export const kill = (x: Lease | Heartbeat) => {
  const t = x as unknown as { renewer?: NodeJS.Timeout | null; timer?: NodeJS.Timeout | null };
  if (t.renewer) clearInterval(t.renewer);
  if (t.timer) clearInterval(t.timer);
};

export function leaseContract(make: () => Promise<LeaseHarness>) {
  let h: LeaseHarness;
  beforeAll(async () => {
    h = await make();
  });
  afterAll(async () => {
    await h.cleanup();
  });
  const name = () => `contract-${randomUUID()}`;

  describe('lease', () => {
    it('is held by one process at a time, renewed past its time to live while held, and free once released', async () => {
      const n = name();
      // A time to live of a second, held past twice that: renewals every third of it ride out a loaded machine's stalls
      // (at 300 ms, one of about 200 ms lost the twin's lease in CI).
      const a = h.lease(n, 1000);
      const b = h.lease(n, 1000);
      expect(a.key).toBe(b.key);
      expect(a.held()).toBe(false);
      expect(await a.tryAcquire()).toBe(true);
      expect(a.held()).toBe(true);
      expect(await b.tryAcquire()).toBe(false);
      await pause(2200);
      expect(a.held()).toBe(true);
      expect(await b.tryAcquire()).toBe(false);
      await a.release();
      expect(a.held()).toBe(false);
      expect(await b.tryAcquire()).toBe(true);
      expect(await h.lease(n, 1000).tryAcquire()).toBe(false);
      await b.release();
    });

    it("frees itself once a holder that died stops renewing; the old holder learns it lost it and cannot free the new one's", async () => {
      const n = name();
      const a = h.lease(n, 200);
      const b = h.lease(n, 200);
      expect(await a.tryAcquire()).toBe(true);
      kill(a);
      expect(await until(() => b.tryAcquire(), 5000)).toBe(true);
      expect(a.held()).toBe(false);
      await a.release();
      expect(b.held()).toBe(true);
      expect(await h.lease(n, 200).tryAcquire()).toBe(false);
      await b.release();
    });

    it('acquire waits for the holder to release, and times out with LeaseTimeout while another keeps it', async () => {
      const n = name();
      const a = h.lease(n, 1000);
      const b = h.lease(n, 1000);
      await a.acquire(1000);
      await expect(b.acquire(150)).rejects.toBeInstanceOf(LeaseTimeout);
      const waiting = b.acquire(5000);
      await pause(50);
      await a.release();
      await waiting;
      expect(b.held()).toBe(true);
      await b.release();
    });

    it('different names are different leases', async () => {
      const a = h.lease(name(), 1000);
      const b = h.lease(name(), 1000);
      expect([await a.tryAcquire(), await b.tryAcquire()]).toEqual([true, true]);
      await a.release();
      await b.release();
    });
  });

  describe('heartbeat', () => heartbeatCases(() => h));
}

/** Which owners are alive. */
function heartbeatCases(get: () => LeaseHarness) {
  it('says which owners are alive: started ones, until they stop or die', async () => {
    const [one, two, never] = [randomUUID(), randomUUID(), randomUUID()];
    const a = get().heartbeat(one, 300);
    const b = get().heartbeat(two, 300);
    expect(a.owner).toBe(one);
    expect(await a.alive([])).toEqual(new Set());
    a.start();
    b.start();
    expect(await a.alive([one, two, never])).toEqual(new Set([one, two]));
    await pause(600);
    expect(await b.alive([one, two])).toEqual(new Set([one, two]));
    await a.stop();
    expect(await b.alive([one, two])).toEqual(new Set([two]));
    kill(b);
    expect(await until(async () => (await a.alive([two])).size === 0, 5000)).toBe(true);
    await b.stop();
  });
}
