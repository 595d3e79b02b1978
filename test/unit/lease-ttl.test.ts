// LEASE_TTL_MS: bounded, and what the composition gives the index leases and the process heartbeat (on the twins).
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { OFFLINE_ENV } from '../../src/offline-documents.js';
import { memoryStores } from '../../src/stores/memory/stores.js';
import { Registry } from '../../src/surfaces/registry.js';
import { composeModules } from '../../src/wiring/compose.js';

/** The time to live each lease and heartbeat was made with, while the modules are composed on the twins. */
async function ttlsWith(env: Record<string, string>) {
  const stores = memoryStores();
  const leases = new Map<string, number | undefined>();
  const beats: Array<number | undefined> = [];
  const seen = {
    ...stores,
    lease: (name: string, ttlMs?: number) => {
      leases.set(name, ttlMs);
      return stores.lease(name, ttlMs);
    },
    heartbeat: (ttlMs?: number) => {
      beats.push(ttlMs);
      return stores.heartbeat(ttlMs);
    },
  };
  const { modules } = await composeModules(seen, loadConfig({ ...OFFLINE_ENV, ...env }), new Registry(), createLogger('silent'));
  for (const m of [...modules].reverse()) await m.stop?.();
  await stores.close();
  return { leases, beats };
}

describe('LEASE_TTL_MS', () => {
  it('is 15 s by default: index leases 15 s, the rebuild lease 30 s, the heartbeat 10 s', async () => {
    const { leases, beats } = await ttlsWith({});
    expect([leases.get('index:structure'), leases.get('index:p0'), leases.get('rebuild'), beats]).toEqual([15_000, 15_000, 30_000, [10_000]]);
  });

  it('sets every index lease, the rebuild lease (twice it) and the heartbeat (two thirds of it)', async () => {
    const { leases, beats } = await ttlsWith({ LEASE_TTL_MS: '3000', INDEX_PARTITIONS: '4' });
    const index = [...leases].filter(([name]) => name.startsWith('index:'));
    expect(index).toHaveLength(5);
    expect(index.every(([, ttl]) => ttl === 3000)).toBe(true);
    expect([leases.get('rebuild'), beats]).toEqual([6000, [2000]]);
  });

  it('is refused below two seconds and above ten minutes, and when it is not a whole number', () => {
    for (const v of ['1999', '600001', '2500.5', 'soon']) expect(() => loadConfig({ ...OFFLINE_ENV, LEASE_TTL_MS: v })).toThrow(/LEASE_TTL_MS/);
    expect(loadConfig({ ...OFFLINE_ENV, LEASE_TTL_MS: '2000' }).LEASE_TTL_MS).toBe(2000);
  });
});
