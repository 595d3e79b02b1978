// The contract suites of the Redis- and Neo4j-backed ports, run against their in-memory twins (no servers).
import { memoryIndexStore } from '../../src/stores/memory/index-store.js';
import { indexStoreContract } from '../contract/index-store.contract.js';

describe('in-memory twins', () => {
  indexStoreContract(async () => ({ index: memoryIndexStore(), async cleanup() { /* nothing outlives the test */ } }));
});
