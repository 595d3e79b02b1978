// The contract suites of the Redis- and Neo4j-backed ports, run against the real adapters on the test stack: Redis
// under a fresh key prefix per harness (deleted after), Neo4j wiped once (the index meta is global) and then shared.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type Driver, isInt } from 'neo4j-driver';
import { connectNeo4j } from '../../src/stores/neo4j/connection.js';
import { neo4jGraphStore } from '../../src/stores/neo4j/graph.js';
import { warmAll } from '../../src/stores/neo4j/warm.js';
import { neo4jIndexStore } from '../../src/stores/neo4j/index-store.js';
import { neo4jTupleListing, SEARCH_SETTLE_MS } from '../../src/stores/neo4j/tuple-listing.js';
import { graphContract, t } from '../contract/graph.contract.js';
import { tupleListingContract } from '../contract/tuple-listing.contract.js';
import { redisChatChannel } from '../../src/stores/redis/chat-channel.js';
import { connectRedis } from '../../src/stores/redis/connection.js';
import { redisDecisionStore } from '../../src/stores/redis/decision-cache.js';
import { redisDeletionHints } from '../../src/stores/redis/deletion-hints.js';
import { redisEpoch } from '../../src/stores/redis/epoch.js';
import { fixedPartitions } from '../../src/stores/redis/index-partitions.js';
import { InvalidationBus } from '../../src/stores/redis/invalidation-bus.js';
import { Heartbeat, Lease } from '../../src/stores/redis/lease.js';
import { redisRateCounter } from '../../src/stores/redis/rate-limits.js';
import { redisReindexState } from '../../src/stores/redis/reindex-state.js';
import { redisRevisionCounter } from '../../src/stores/redis/revision-counter.js';
import { redisTokenDenyList } from '../../src/stores/redis/token-deny-list.js';
import type { InvalidationBusMember } from '../../src/stores/ports/invalidation-bus.js';
import { BUS_LEASE_MS, busContract } from '../contract/invalidation-bus.contract.js';
import { chatChannelContract } from '../contract/chat-channel.contract.js';
import { decisionStoreContract } from '../contract/decision-cache.contract.js';
import { deletionHintsContract } from '../contract/deletion-hints.contract.js';
import { epochContract } from '../contract/epoch.contract.js';
import { indexAnswersContract } from '../contract/index-answers.contract.js';
import { indexShapesContract } from '../contract/index-shapes.contract.js';
import { indexStoreContract, liveGeneration } from '../contract/index-store.contract.js';
import { partitionsContract } from '../contract/index-partitions.contract.js';
import { leaseContract } from '../contract/lease.contract.js';
import { rateCounterContract } from '../contract/rate-limits.contract.js';
import { reindexStateContract } from '../contract/reindex-state.contract.js';
import { revisionCounterContract } from '../contract/revision-counter.contract.js';
import { denyListContract } from '../contract/token-deny-list.contract.js';

const connectIndex = () => connectNeo4j(process.env.NEO4J_URI!, process.env.NEO4J_USER ?? 'neo4j', process.env.NEO4J_PASSWORD ?? '');
let redis: Redis;

/** Deletes every key under the prefix (the store "loses its data", or a harness cleans up after itself). */
async function dropPrefix(prefix: string): Promise<void> {
  const keys: string[] = [];
  for (let cursor = '0';;) {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
    if (cursor === '0') break;
  }
  if (keys.length) await redis.del(...keys);
}

/** Empties the projection, keeping the index meta (it is global): each case of the index contract starts from none. */
const wipeProjection = (driver: Driver) => async () => {
  for (let n = 1; n > 0;) {
    n = Number((await driver.executeQuery('MATCH (x) WHERE NOT x:IndexMeta WITH x LIMIT 10000 DETACH DELETE x RETURN count(*) AS c')).records[0]!.get('c'));
  }
};

/** A fresh prefix and its cleanup. */
const fresh = () => {
  const prefix = `ct:${randomUUID()}`;
  return { prefix, cleanup: () => dropPrefix(prefix), loseAll: () => dropPrefix(prefix) };
};

beforeAll(async () => {
  redis = connectRedis(process.env.REDIS_URL!);
  // As every test file of the stack tier starts from nothing (test/support/service.ts): the index meta is global.
  const driver = await connectIndex();
  for (let n = 1; n > 0;) n = Number((await driver.executeQuery('MATCH (x) WITH x LIMIT 10000 DETACH DELETE x RETURN count(*) AS c')).records[0]!.get('c'));
  // As the service does at start: a cold Neo4j plans each statement on its first use (a first subject list took 3.6 s),
  // and the first compare of the index contract ran into that on a loaded machine.
  await warmAll(driver);
  await driver.close();
});
afterAll(async () => {
  await redis.quit();
});

// A check on an object with many tuples into it asks from the subject's side (DENSE_OBJECT): here every check does,
// over the cases with arrows, teams, grants and public entries. Lists do not depend on it: checks only.
describe("real adapters: Neo4j, every check asked from the subject's side", () => {
  let h: Awaited<ReturnType<typeof denseHarness>>;
  const denseHarness = async () => {
    const driver = await connectIndex();
    const wipe = wipeProjection(driver);
    return { index: neo4jIndexStore(driver, { denseObject: -1 }), graph: neo4jGraphStore(driver), wipe, cleanup: () => driver.close() };
  };
  beforeAll(async () => {
    h = await denseHarness();
  });
  afterAll(async () => {
    await h.cleanup();
  });
  const liveGen = liveGeneration(() => h.index);
  indexAnswersContract(() => h, liveGen, ['folders-teams-documents.json', 'direct-grants.json', 'redefine-public-toggle.json', 'builtin-team-owned-by-team.json',
    'cycle-three-groups.json', 'random 7'], true);
  indexShapesContract(() => h, liveGen);
});

describe('real adapters: Neo4j', () => {
  indexStoreContract(async () => {
    const driver = await connectIndex();
    const wipe = wipeProjection(driver);
    return { index: neo4jIndexStore(driver), graph: neo4jGraphStore(driver), wipe, cleanup: () => driver.close() };
  });
  graphContract(async () => {
    const driver = await connectIndex();
    return { graph: neo4jGraphStore(driver), cleanup: () => driver.close() };
  });
  tupleListingContract(async () => {
    const driver = await connectIndex();
    return { graph: neo4jGraphStore(driver), listing: (limits) => neo4jTupleListing(driver, limits), cleanup: () => driver.close(), settleMs: SEARCH_SETTLE_MS };
  });
});

// The search's pending mark outlives the catch-up's commit by the settle (cypher/listing.cypher, settle), then comes off
// in key order, and a rewrite in between keeps it: the contract sees neither, only that every search finds its tuples.
describe('real adapters: Neo4j tuple search marks', () => {
  const markOf = (m: unknown) => (m === null ? 'none' : m === true ? 'to index' : typeof m === 'number' || isInt(m) ? 'indexed at' : String(m));
  it('the catch-up indexes a pending edge and keeps its mark until the settle has passed, a rewrite keeping it too', async () => {
    const driver = await connectIndex();
    try {
      const graph = neo4jGraphStore(driver);
      // A settle long enough for a loaded machine to sync and pass within it.
      const listing = neo4jTupleListing(driver, undefined, 2000);
      while (await listing.catchUp(1000) > 0);
      const word = `w${randomUUID().slice(0, 8)}`;
      const keys = ['a', 'b'].map((u) => `Mk:${word}${u}#viewer@Mr:d`);
      const sync = () => graph.sync(keys.map((k) => ({ tuple: t(k), grant: false, present: true })));
      const marks = async () =>
        (await driver.executeQuery('MATCH ()-[t:TUPLE]->() WHERE t.key STARTS WITH $p RETURN t.searchPending AS m, t.keyLower AS l ORDER BY t.key', { p: `Mk:${word}` })).records
          .map((r) => ({ mark: markOf(r.get('m')), lower: r.get('l') as string | null }));
      await sync();
      expect(await marks()).toEqual([{ mark: 'to index', lower: null }, { mark: 'to index', lower: null }]);
      expect(await listing.catchUp(1000)).toBe(2);
      const indexed = keys.map((k) => ({ mark: 'indexed at', lower: k.toLowerCase() }));
      // A time (a Neo4j integer), kept by a rewrite and by a pass before the settle.
      await sync();
      expect(await listing.catchUp(1000)).toBe(0);
      expect(await marks()).toEqual(indexed);
      await new Promise((r) => setTimeout(r, 2100));
      expect(await listing.catchUp(1000)).toBe(0);
      expect(await marks()).toEqual(keys.map((k) => ({ mark: 'none', lower: k.toLowerCase() })));
    } finally {
      await driver.close();
    }
  });
});

describe('real adapters: Neo4j index format', () => {
  it("migrate drops an older format's nodes and says so at every start until a hard rebuild switches generation", async () => {
    const driver = await connectIndex();
    try {
      const index = neo4jIndexStore(driver);
      const meta = await index.meta();
      await driver.executeQuery(`MATCH (m:IndexMeta {id: 'meta'}) REMOVE m.format
        CREATE (:IndexRow {id: 'old|Doc:d#view', gen: 1})-[:GIVES]->(:IndexKey {id: 'old|Doc:d#owner', gen: 1})<-[:HOLDS]-(:Actor {id: 'old|User:u', gen: 1})`);
      const left = async () => Number((await driver.executeQuery('MATCH (n) WHERE n:IndexRow OR n:IndexKey OR n:Actor RETURN count(n) AS n')).records[0]!.get('n'));
      expect(await left()).toBe(3);
      expect(await index.migrate()).toBe(true);
      expect(await left()).toBe(0);
      // A crash before the rebuild was requested: the next start still sees the old format.
      expect(await index.migrate()).toBe(true);
      await index.switchGeneration(meta.gen);
      expect(await index.migrate()).toBe(false);
    } finally {
      await driver.close();
    }
  });
});

describe('real adapters: Redis', () => {
  leaseContract(async () => {
    const { prefix, cleanup } = fresh();
    return {
      lease: (name, ttlMs) => new Lease(redis, `${prefix}:lease:${name}`, ttlMs),
      heartbeat: (owner, ttlMs) => new Heartbeat(redis, prefix, owner, ttlMs),
      cleanup,
    };
  });
  revisionCounterContract(async () => {
    const { prefix, cleanup, loseAll } = fresh();
    return { counter: () => redisRevisionCounter(redis, prefix), loseAll, cleanup };
  });
  epochContract(async () => {
    const { prefix, cleanup, loseAll } = fresh();
    return { epoch: (name) => redisEpoch(redis, `${prefix}:ep:~${name}`), loseAll, cleanup };
  });
  busContract(async () => {
    const { prefix, cleanup, loseAll } = fresh();
    // Each member is a process of its own: its own connection, which a crash drops with the subscriber's.
    const members = new Map<InvalidationBusMember, Redis>();
    return {
      member(apply, reset) {
        const conn = connectRedis(process.env.REDIS_URL!);
        conn.on('error', () => undefined);
        const m = new InvalidationBus(conn, prefix, apply, reset, BUS_LEASE_MS);
        members.set(m, conn);
        return m;
      },
      async crash(m) {
        members.get(m)!.disconnect();
        (m as unknown as { sub: Redis }).sub.disconnect();
      },
      loseAll,
      async cleanup() {
        for (const [m, conn] of members) {
          await m.stop();
          conn.disconnect();
        }
        await cleanup();
      },
    };
  });
});

describe('real adapters: Redis, caches and counters', () => {
  decisionStoreContract(async () => {
    const { prefix, cleanup } = fresh();
    return { store: () => redisDecisionStore(redis, prefix), cleanup };
  });
  rateCounterContract(async () => {
    const { prefix, cleanup } = fresh();
    return { counter: () => redisRateCounter(redis, prefix), cleanup };
  });
  denyListContract(async () => {
    const { prefix, cleanup } = fresh();
    return { list: () => redisTokenDenyList(redis, prefix), cleanup };
  });
  deletionHintsContract(async () => {
    const { prefix, cleanup } = fresh();
    return { hints: () => redisDeletionHints(redis, prefix), cleanup };
  });
  reindexStateContract(async () => {
    const { prefix, cleanup } = fresh();
    return { state: () => redisReindexState(redis, prefix), cleanup };
  });
  partitionsContract(async () => {
    const { prefix, cleanup } = fresh();
    return { fixed: (wanted) => fixedPartitions(redis, prefix, wanted), cleanup };
  });
  chatChannelContract(async () => {
    const { prefix, cleanup } = fresh();
    const channels: Array<{ stop(): Promise<void> }> = [];
    return {
      channel(onMessage) {
        const c = redisChatChannel(redis, prefix, onMessage);
        channels.push(c);
        return c;
      },
      async cleanup() {
        await Promise.all(channels.map((c) => c.stop()));
        await cleanup();
      },
    };
  });
});
