// The revision counter is seeded from the highest logged revision by point reads: the sort FerretDB v1 answers by
// reading every entry did not finish within the command bound at 1M revisions, so no process could start.
import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { Redis } from 'ioredis';
import { mongoChangeLog } from '../../src/stores/mongo/change-log.js';
import { COLLECTIONS } from '../../src/stores/mongo/connection.js';
import { redisRevisionCounter } from '../../src/stores/redis/revision-counter.js';
import { ownDatabase } from '../support/own-db.js';

let mongo: MongoClient;
let redis: Redis;
const finds: Document[] = [];

beforeAll(async () => {
  mongo = new MongoClient(await ownDatabase('change_log_seed'), { monitorCommands: true });
  mongo.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'find' && e.command.find === COLLECTIONS.changes) finds.push(e.command.filter as Document);
  });
  await mongo.connect();
  redis = new Redis(process.env.REDIS_URL!);
});
afterAll(async () => {
  await mongo?.close();
  redis?.disconnect();
});

/** A log of these revisions, and a counter on a Redis prefix of its own (a fresh or wiped Redis). */
async function logOf(revisions: number[]) {
  const db = mongo.db();
  await db.dropDatabase();
  const at = new Date();
  if (revisions.length) {
    await db.collection<{ _id: number }>(COLLECTIONS.changes).insertMany(revisions.map((r) => ({ _id: r, revision: r, kind: 'tuples', op: 'add', tuples: [], at })));
  }
  finds.length = 0;
  return mongoChangeLog(db, redisRevisionCounter(redis, `test-seed-${randomUUID()}`));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

it.each([
  ['an empty log', [], 0],
  ['one entry', [1], 1],
  ['a log with failed writes (missing revisions) inside and at its end', range(1, 3456).filter((r) => r % 97 !== 0 && r !== 3455), 3456],
  ['a log ending in a failed write', range(1, 1000).filter((r) => r !== 1000), 999],
])('seeds the counter past %s by `_id` point reads', async (_name, revisions, highest) => {
  const log = await logOf(revisions);
  expect(await log.latest()).toBe(highest);
  expect(finds.length).toBeGreaterThan(0);
  expect(finds.filter((f) => Object.keys(f).join() !== '_id' || typeof f._id !== 'number')).toEqual([]);
  // The next write takes the revision after it.
  expect(await log.commit({ kind: 'tuples', op: 'add', tuples: ['User:a#viewer@Doc:1'] }, 'test', { pending: false })).toBe(highest + 1);
});

it('seeds the counter exactly after a run of more failed writes than any probe window (an outage)', async () => {
  const prefix = `test-seed-${randomUUID()}`;
  const db = mongo.db();
  await db.dropDatabase();
  const log = mongoChangeLog(db, redisRevisionCounter(redis, prefix));
  const write = { kind: 'tuples' as const, op: 'add' as const, tuples: ['User:a#viewer@Doc:1'] };
  for (let i = 0; i < 5; i++) await log.commit(write, 'test', { pending: false });
  // Every write refused during an outage took its revision: 250 burnt in a row, then writes succeed again.
  await redis.incrby(`${prefix}:revision`, 250);
  const after: number[] = [];
  for (let i = 0; i < 3; i++) after.push(await log.commit(write, 'test', { pending: false }));
  expect(after).toEqual([256, 257, 258]);
  // Redis lost its counter: a fresh one is seeded past every stored revision, and the next write goes above them.
  const fresh = mongoChangeLog(db, redisRevisionCounter(redis, `test-seed-${randomUUID()}`));
  expect(await fresh.latest()).toBe(258);
  expect(await fresh.commit(write, 'test', { pending: false })).toBe(259);
});
