// The change feed reads the log by point reads and sealed blocks, never by a range FerretDB answers with a scan of the log.
import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { Redis } from 'ioredis';
import { ChangeFeed } from '../../src/services/authorization/change-feed.js';
import { Revisions } from '../../src/services/authorization/revisions.js';
import { BLOCK } from '../../src/stores/mongo/change-blocks.js';
import { mongoChangeLog } from '../../src/stores/mongo/change-log.js';
import { COLLECTIONS } from '../../src/stores/mongo/connection.js';
import { redisRevisionCounter } from '../../src/stores/redis/revision-counter.js';
import { ownDatabase } from '../support/own-db.js';
import { readAllRevisions } from '../support/feed-pages.js';

let mongo: MongoClient;
let redis: Redis;
const finds: Array<{ collection: string; filter: Document }> = [];
const old = new Date(Date.now() - 3_600_000);
const entry = (r: number, at = old) => ({ _id: r, revision: r, kind: 'tuples', op: 'add', tuples: [`User:u${r}#viewer@Doc:d${r}`], at });

beforeAll(async () => {
  mongo = new MongoClient(await ownDatabase('change_feed_blocks'), { monitorCommands: true });
  mongo.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'find') finds.push({ collection: String(e.command.find), filter: e.command.filter as Document });
  });
  await mongo.connect();
  redis = new Redis(process.env.REDIS_URL!);
});
afterAll(async () => {
  await mongo?.close();
  redis?.disconnect();
});

/** A feed over a log of these entries, on its own Redis prefix, with every revision up to the highest settled. */
async function feedOver(entries: Array<ReturnType<typeof entry>>) {
  const db = mongo.db();
  await db.dropDatabase();
  await db.collection<{ _id: number }>(COLLECTIONS.changes).insertMany(entries);
  const log = mongoChangeLog(db, redisRevisionCounter(redis, `test-blocks-${randomUUID()}`));
  // The counter and its pending set are seeded from the highest stored revision once (a process starts, Redis lost
  // them), not by each page: that read is left out here.
  const revisions = new Revisions(log);
  await revisions.settled();
  return { feed: new ChangeFeed(log, revisions), db };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const sealedBlocks = async (db = mongo.db()) =>
  (await db.collection<{ _id: number }>(COLLECTIONS.changeBlocks).find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort((a, b) => a - b);

describe('change feed over blocks of the log', () => {
  it('reads pages by `_id` equality only, nothing skipped or repeated, and seals settled blocks whose gaps are final', async () => {
    // Revision 150 failed long ago (a final gap inside a block); 299 failed at a block's end, the entry after it old.
    const stored = range(1, 3 * BLOCK + 50).filter((r) => r !== 150 && r !== 3 * BLOCK - 1);
    const { feed } = await feedOver(stored.map((r) => entry(r)));
    finds.length = 0;
    expect(await readAllRevisions(feed, 37)).toEqual(stored);
    // On FerretDB v1 only equalities reach PostgreSQL (and its index): a range or an `$in` read the whole log.
    const onLog = finds.filter((f) => f.collection === COLLECTIONS.changes || f.collection === COLLECTIONS.changeBlocks);
    expect(onLog.length).toBeGreaterThan(0);
    expect(onLog.filter((f) => Object.keys(f.filter).join() !== '_id' || typeof f.filter._id !== 'number')).toEqual([]);
    expect(await sealedBlocks()).toEqual([0, 1, 2]);

    // Read again, the sealed blocks answer: the log itself is read only past them.
    finds.length = 0;
    expect(await readAllRevisions(feed, 1000)).toEqual(stored);
    const logReads = finds.filter((f) => f.collection === COLLECTIONS.changes).map((f) => f.filter._id as number);
    expect(logReads.length).toBeGreaterThan(0);
    expect(logReads.filter((r) => r < 3 * BLOCK)).toEqual([]);
  });

  it('does not seal a block over a gap still young, and serves the late write once it lands', async () => {
    // Revision 120 is missing and the entries after it were just written: its writer may still be on its way.
    const stored = [...range(1, 119).map((r) => entry(r)), ...range(121, 2 * BLOCK + 10).map((r) => entry(r, new Date()))];
    const { feed, db } = await feedOver(stored);
    expect(await readAllRevisions(feed, 1000)).toEqual(range(1, 119));
    expect(await sealedBlocks(db)).toEqual([0]);
    await db.collection<{ _id: number }>(COLLECTIONS.changes).insertOne(entry(120, new Date()));
    expect(await readAllRevisions(feed, 50)).toEqual(range(1, 2 * BLOCK + 10));
    expect(await sealedBlocks(db)).toEqual([0, 1]);
  });

  it('bounds a page by its changes: entries of many tuples are read only as far as the page needs', async () => {
    const wide = (r: number) => ({ ...entry(r), tuples: Array.from({ length: 400 }, (_, i) => `User:w${i}#viewer@Doc:r${r}`) });
    const { feed } = await feedOver(range(1, 2 * BLOCK + 5).map(wide));
    finds.length = 0;
    const page = await feed.page(BLOCK + 10, 1000);
    expect(page.changes).toHaveLength(800);
    expect(page.next).toBe(BLOCK + 12);
    // Block 1 is read whole once to seal it; block 2, not needed, not at all (its copy may be asked for).
    const logReads = finds.filter((f) => f.collection === COLLECTIONS.changes).map((f) => f.filter._id as number);
    expect(logReads.filter((r) => r >= 2 * BLOCK)).toEqual([]);
  });
});
