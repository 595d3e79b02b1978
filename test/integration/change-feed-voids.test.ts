// A revision the feed passes over or seals as missing is claimed by a void first: a write still on its way with it
// commits again under a new revision, served to every reader; two processes sealing at once agree.
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { ChangeFeed } from '../../src/services/authorization/change-feed.js';
import { Revisions } from '../../src/services/authorization/revisions.js';
import { BLOCK, changeBlocks, VOID } from '../../src/stores/mongo/change-blocks.js';
import { mongoChangeLog } from '../../src/stores/mongo/change-log.js';
import { COLLECTIONS } from '../../src/stores/mongo/connection.js';
import { redisRevisionCounter } from '../../src/stores/redis/revision-counter.js';
import { ownDatabase } from '../support/own-db.js';
import { readAllRevisions } from '../support/feed-pages.js';

let url: string;
let mongo: MongoClient;
let other: MongoClient;
let redis: Redis;
const old = new Date(Date.now() - 3_600_000);
const entry = (r: number, at = old) => ({ _id: r, revision: r, kind: 'tuples', op: 'add', tuples: [`User:u${r}#viewer@Doc:d${r}`], at });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const write = (name: string) => ({ kind: 'tuples' as const, op: 'add' as const, tuples: [`User:${name}#viewer@Doc:late`] });

beforeAll(async () => {
  url = await ownDatabase('change_feed_voids');
  mongo = new MongoClient(url);
  other = new MongoClient(url);
  await Promise.all([mongo.connect(), other.connect()]);
  redis = new Redis(process.env.REDIS_URL!);
});
afterAll(async () => {
  await mongo?.close();
  await other?.close();
  redis?.disconnect();
});

/** A log of these entries and a feed over it, on a Redis prefix of its own; `client` stands for another process. */
async function feedOver(entries: Array<ReturnType<typeof entry>>, prefix = `test-voids-${randomUUID()}`, client = mongo, drop = true) {
  const db = client.db();
  if (drop) {
    await db.dropDatabase();
    await db.collection<{ _id: number }>(COLLECTIONS.changes).insertMany(entries);
  }
  const log = mongoChangeLog(db, redisRevisionCounter(redis, prefix));
  const revisions = new Revisions(log);
  await revisions.settled();
  return { feed: new ChangeFeed(log, revisions), log, db, prefix };
}

const sealedBlocks = async () =>
  (await mongo.db().collection<{ _id: number }>(COLLECTIONS.changeBlocks).find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort((a, b) => a - b);
/** A writer that took `revision` long ago and is only now inserting: the shared counter stands just below it. */
const counterAt = (prefix: string, revision: number) => redis.set(`${prefix}:revision`, String(revision - 1));

describe('voids over final gaps', () => {
  it('a write landing late under a sealed block commits again above, and a reader from 0 gets it', async () => {
    const stored = range(1, 2 * BLOCK + 50).filter((r) => r !== 120);
    const { feed, log, prefix } = await feedOver(stored.map((r) => entry(r)));
    expect(await readAllRevisions(feed, 1000)).toEqual(stored);
    expect(await sealedBlocks()).toContain(1);
    // The writer of 120 stalled past GAP_FINAL_MS: its insert finds the void and it takes the next revision.
    await counterAt(prefix, 120);
    const acknowledged = await log.commit(write('late'), 'test', { pending: false });
    expect(acknowledged).toBeGreaterThan(2 * BLOCK + 50);
    const again = await readAllRevisions(feed, 1000);
    expect(again).toEqual([...stored, acknowledged]);
    expect(await log.entries([120])).toEqual([]);
  });

  it('seals a block whose last revision and the one after it both failed', async () => {
    const stored = range(1, 3 * BLOCK + 20).filter((r) => r !== 2 * BLOCK - 1 && r !== 2 * BLOCK);
    const { feed } = await feedOver(stored.map((r) => entry(r)));
    expect(await readAllRevisions(feed, 1000)).toEqual(stored);
    expect(await sealedBlocks()).toEqual([0, 1, 2]);
    const voids = await mongo.db().collection<{ _id: number }>(COLLECTIONS.changes).find({ kind: VOID }).toArray();
    expect(voids.map((v) => v._id).sort((a, b) => a - b)).toEqual([2 * BLOCK - 1, 2 * BLOCK]);
  });

  it('a follower passing a final gap in the last block claims it, so a late write there is served above', async () => {
    const stored = range(1, 60).filter((r) => r !== 30);
    const { feed, log, prefix } = await feedOver(stored.map((r) => entry(r)));
    expect(await readAllRevisions(feed, 1000)).toEqual(stored);
    await counterAt(prefix, 30);
    const acknowledged = await log.commit(write('follower'), 'test', { pending: false });
    expect(acknowledged).toBeGreaterThan(60);
    const page = await feed.page(60, 1000);
    expect(page.changes.map((c) => c.revision)).toEqual([acknowledged]);
  });

  it('two processes sealing at once, with a write below in flight, serve everything once and agree', async () => {
    const stored = range(1, 6 * BLOCK).filter((r) => r % 97 !== 0);
    const a = await feedOver(stored.map((r) => entry(r)));
    const b = await feedOver([], a.prefix, other, false);
    // A writer holding 97 (a revision that looks failed) lands while both read from 0: its counter (a third
    // process's, lagging) hands it out; it shares the database.
    const writer = await feedOver([], `test-voids-${randomUUID()}`, other, false);
    await counterAt(writer.prefix, 97);
    const [fromA, fromB, acknowledged] = await Promise.all([readAllRevisions(a.feed, 150), readAllRevisions(b.feed, 70),
      writer.log.commit(write('inflight'), 'test', { pending: false })]);
    for (const seen of [fromA, fromB]) {
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((r) => r !== 97)).toEqual(stored);
    }
    // Whatever raced, the acknowledged revision is served to a reader from 0 by either process, once the shared
    // counter knows of it.
    await a.log.commit(write('after'), 'test', { pending: false }).then((r) => redis.set(`${a.prefix}:revision`, String(Math.max(r, acknowledged))));
    expect(await readAllRevisions(a.feed, 1000)).toContain(acknowledged);
    expect(await readAllRevisions(b.feed, 1000)).toContain(acknowledged);
    expect(await sealedBlocks()).toEqual(range(0, 5));
  });
});

describe('the ranged read MongoDB answers from its index', () => {
  it('serves entries in order within the limit and claims final gaps as the blocks do', async () => {
    const stored = range(1, 60).filter((r) => r !== 30);
    const { db } = await feedOver(stored.map((r) => entry(r)));
    const blocks = changeBlocks(db.collection(COLLECTIONS.changes), db.collection(COLLECTIONS.changeBlocks));
    expect((await blocks.ranged(0, 60, 10)).map((e) => e.revision)).toEqual(range(1, 10));
    expect((await blocks.ranged(10, 60, 1000)).map((e) => e.revision)).toEqual(stored.filter((r) => r > 10));
    const voids = await db.collection<{ _id: number }>(COLLECTIONS.changes).find({ kind: VOID }).toArray();
    expect(voids.map((v) => v._id)).toEqual([30]);
  });
});
