// The contract suites of the Redis- and Neo4j-backed ports, run against their in-memory twins (no servers). Each
// harness is one hub: every port object it makes is another process on the same "Redis".
import { randomUUID } from 'node:crypto';
import { memoryDecisionStore } from '../../src/stores/memory/decision-cache.js';
import { memoryDeletionHints } from '../../src/stores/memory/deletion-hints.js';
import { memoryEpoch } from '../../src/stores/memory/epoch.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import { memoryFixedPartitions } from '../../src/stores/memory/index-partitions.js';
import { memoryIndexStore } from '../../src/stores/memory/index-store.js';
import { MemoryInvalidationBus } from '../../src/stores/memory/invalidation-bus.js';
import { MemoryHeartbeat, MemoryLease } from '../../src/stores/memory/lease.js';
import { memoryRateCounter } from '../../src/stores/memory/rate-limits.js';
import { memoryReindexState } from '../../src/stores/memory/reindex-state.js';
import { memoryRevisionCounter } from '../../src/stores/memory/revision-counter.js';
import { memoryTokenDenyList } from '../../src/stores/memory/token-deny-list.js';
import { memoryChatChannel } from '../../src/stores/memory/chat-channel.js';
import { memoryGraphStore } from '../../src/stores/memory/graph.js';
import { MemoryGraph } from '../../src/stores/memory/graph-state.js';
import { memoryTupleListing } from '../../src/stores/memory/tuple-listing.js';
import { graphContract } from '../contract/graph.contract.js';
import { tupleListingContract } from '../contract/tuple-listing.contract.js';
import { BUS_LEASE_MS, busContract } from '../contract/invalidation-bus.contract.js';
import { chatChannelContract } from '../contract/chat-channel.contract.js';
import { decisionStoreContract } from '../contract/decision-cache.contract.js';
import { deletionHintsContract } from '../contract/deletion-hints.contract.js';
import { epochContract } from '../contract/epoch.contract.js';
import { indexStoreContract } from '../contract/index-store.contract.js';
import { partitionsContract } from '../contract/index-partitions.contract.js';
import { leaseContract } from '../contract/lease.contract.js';
import { rateCounterContract } from '../contract/rate-limits.contract.js';
import { reindexStateContract } from '../contract/reindex-state.contract.js';
import { revisionCounterContract } from '../contract/revision-counter.contract.js';
import { denyListContract } from '../contract/token-deny-list.contract.js';

const none = async () => {/* nothing outlives the hub */};
/** A fresh hub (one "Redis") and a prefix, as each real harness has its own. */
const fresh = () => ({ hub: new MemoryHub(), prefix: `ct:${randomUUID()}` });

describe('in-memory twins', () => {
  indexStoreContract(async () => {
    const g = new MemoryGraph();
    const wipe = async () => {
      for (const m of [g.objects, g.tuples, g.grants, g.into, g.outOf]) m.clear();
    };
    return { index: memoryIndexStore(g), graph: memoryGraphStore(g), wipe, cleanup: none };
  });
  graphContract(async () => ({ graph: memoryGraphStore(new MemoryGraph()), cleanup: none }));
  tupleListingContract(async () => {
    const g = new MemoryGraph();
    return { graph: memoryGraphStore(g), listing: (limits) => memoryTupleListing(g, limits), cleanup: none };
  });
  leaseContract(async () => {
    const { hub, prefix } = fresh();
    return {
      lease: (name, ttlMs) => new MemoryLease(hub, `${prefix}:lease:${name}`, ttlMs),
      heartbeat: (owner, ttlMs) => new MemoryHeartbeat(hub, prefix, owner, ttlMs),
      cleanup: none,
    };
  });
  revisionCounterContract(async () => {
    const { hub, prefix } = fresh();
    return { counter: () => memoryRevisionCounter(hub, prefix), loseAll: async () => hub.flush(), cleanup: none };
  });
  epochContract(async () => {
    const { hub, prefix } = fresh();
    return { epoch: (name) => memoryEpoch(hub, `${prefix}:ep:~${name}`), loseAll: async () => hub.flush(), cleanup: none };
  });
  busContract(async () => {
    const { hub, prefix } = fresh();
    const members: MemoryInvalidationBus[] = [];
    return {
      member(apply, reset) {
        const m = new MemoryInvalidationBus(hub, prefix, apply, reset, BUS_LEASE_MS);
        members.push(m);
        return m;
      },
      crash: async (m) => (m as MemoryInvalidationBus).crash(),
      loseAll: async () => hub.flush(),
      async cleanup() {
        await Promise.all(members.map((m) => m.stop()));
      },
    };
  });
  decisionStoreContract(async () => {
    const { hub, prefix } = fresh();
    return { store: () => memoryDecisionStore(hub, prefix), cleanup: none };
  });
  rateCounterContract(async () => {
    const { hub, prefix } = fresh();
    return { counter: () => memoryRateCounter(hub, prefix), cleanup: none };
  });
  denyListContract(async () => {
    const { hub, prefix } = fresh();
    return { list: () => memoryTokenDenyList(hub, prefix), cleanup: none };
  });
  deletionHintsContract(async () => {
    const { hub, prefix } = fresh();
    return { hints: () => memoryDeletionHints(hub, prefix), cleanup: none };
  });
  reindexStateContract(async () => {
    const { hub, prefix } = fresh();
    return { state: () => memoryReindexState(hub, prefix), cleanup: none };
  });
  partitionsContract(async () => {
    const { hub, prefix } = fresh();
    return { fixed: (wanted) => memoryFixedPartitions(hub, prefix, wanted), cleanup: none };
  });
  chatChannelContract(async () => {
    const { hub, prefix } = fresh();
    return { channel: (onMessage) => memoryChatChannel(hub, prefix, onMessage), cleanup: none };
  });
});
