// Holds index leases from a test, as another process would: every partition and the structure, or the structure only.
import type { TestService } from './service.js';

/** Takes the leases through the service's peer (waiting while a unit holds one) and returns what gives them back. */
export async function holdIndexLeases(svc: Pick<TestService, 'peer' | 'config'>, which: 'all' | 'structure' = 'all', ttlMs = 20_000): Promise<() => Promise<void>> {
  const peer = await svc.peer();
  const partitions = which === 'all' ? await peer.indexPartitions(svc.config.INDEX_PARTITIONS) : 0;
  const leases = [peer.lease('index:structure', ttlMs), ...Array.from({ length: partitions }, (_, i) => peer.lease(`index:p${i}`, ttlMs))];
  const held: typeof leases = [];
  const giveBack = async () => {
    await Promise.all(held.map((l) => l.release()));
    await peer.close();
  };
  try {
    for (const lease of leases) {
      await lease.acquire(10_000);
      held.push(lease);
    }
  } catch (e) {
    await giveBack();
    throw e;
  }
  return giveBack;
}
