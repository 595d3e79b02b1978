// `npm run bench:storage -- --url mongodb://…/db [--url …]`: times the MongoDB operations the write path uses,
// to compare MongoDB-wire backends (FerretDB v1 on SQLite or on PostgreSQL, or a real MongoDB) on this workload.
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';

const { values } = parseArgs({ options: { url: { type: 'string', multiple: true }, docs: { type: 'string', default: '100000' } } });
const N = Number(values.docs);
const say = (s: string) => process.stdout.write(`${s}\n`);
const time = async (label: string, n: number, work: () => Promise<unknown>) => {
  const t = performance.now();
  await work();
  const ms = performance.now() - t;
  say(`  ${label.padEnd(44)} ${(ms / n).toFixed(2).padStart(9)} ms each  (${n} in ${(ms / 1000).toFixed(1)} s)`);
};

async function run(url: string) {
  say(`\n${url.replace(/\/\/[^@]*@/, '//…@')}  (${N} relationship-shaped documents)`);
  const client = new MongoClient(url);
  await client.connect();
  const db = client.db();
  await db.dropDatabase();
  const col = db.collection<{ _id: string; subject: string; resourceType: string; n: number }>('rels');
  const doc = (i: number) => ({ _id: `k${i}`, subject: `User:u${i % 1000}`, resourceType: `T${i % 10}`, n: i });
  await time('insertMany, 1000 unordered', N / 1000, async () => {
    for (let i = 0; i < N; i += 1000) await col.insertMany(Array.from({ length: 1000 }, (_, j) => doc(i + j)), { ordered: false });
  });
  await time('insertOne (single write)', 200, async () => {
    for (let i = 0; i < 200; i++) await col.insertOne(doc(N + i));
  });
  await time('findOne by _id (presence, one tuple)', 500, async () => {
    for (let i = 0; i < 500; i++) await col.findOne({ _id: `k${(i * 7919) % N}` });
  });
  await time('find _id $in 100 (presence, one batch)', 10, async () => {
    for (let i = 0; i < 10; i++) await col.find({ _id: { $in: Array.from({ length: 100 }, (_, j) => `k${(i * 100 + j) * 31 % N}`) } }).toArray();
  });
  await time('find by subject (equality, non-_id)', 10, async () => {
    for (let i = 0; i < 10; i++) await col.find({ subject: `User:u${i}` }).toArray();
  });
  await time('sort _id descending, limit 1', 10, async () => {
    for (let i = 0; i < 10; i++) await col.find({}).sort({ _id: -1 }).limit(1).toArray();
  });
  await time('deleteOne by _id', 200, async () => {
    for (let i = 0; i < 200; i++) await col.deleteOne({ _id: `k${i * 13}` });
  });
  await db.dropDatabase();
  await client.close();
}

async function main() {
  for (const url of values.url ?? ['mongodb://127.0.0.1:27017/storagebench']) await run(url);
}
main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
