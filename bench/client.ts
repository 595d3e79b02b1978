// `npm run bench:client [-- --documents 100000 --readable 10000]`: the client surface's goals of issue 8 —
// an authorized page of 25 from a schema where the user may read `readable` of `documents`, and
// `/authorization/check` against the admin `can` at the same load.
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { fmt, pct, say } from './report.js';
import { benchService } from './service.js';

const { values: args } = parseArgs({ options: {
  documents: { type: 'string', default: '100000' },
  readable: { type: 'string', default: '10000' },
  concurrency: { type: 'string', default: '16' },
} });
const N = Number(args.documents);
const R = Number(args.readable);
const C = Number(args.concurrency);

type Call = (base: number, method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The service's two surfaces, credentials on each, and the reader's user. */
interface Bench {
  call: Call;
  admin: number;
  client: number;
  asAdmin: Record<string, string>;
  asUser: Record<string, string>;
  me: string;
  mongoUrl: string;
}

async function main() {
  const svc = await benchService('bench-client', { redis: 26479, mongo: 27317, postgres: 27332, bolt: 27787, http: 27574 });
  const { config } = svc;
  const admin = svc.port('admin');
  const client = svc.port('client');
  const call = async (base: number, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const r = await fetch(`http://127.0.0.1:${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body) });
    return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const asAdmin = { masterkey: config.MASTER_KEY };
  try {
    await call(admin, 'POST', '/database/schemas', asAdmin, { name: 'Report', fields: { title: 'String', n: 'Number' }, serviceOptions: { authorization: { enabled: true } } });
    await call(client, 'POST', '/authentication/local/new', {}, { email: 'reader@bench.io', password: 'bench password' });
    const login = await call(client, 'POST', '/authentication/local', {}, { email: 'reader@bench.io', password: 'bench password' });
    const me = `User:${login.userId}`;
    const asUser = { authorization: `Bearer ${login.accessToken}` };
    const b: Bench = { call, admin, client, asAdmin, asUser, me, mongoUrl: config.MONGO_URL };
    await loadReports(b);
    await pagesWhileWriting(b);
    await checkLatencies(b);
  } finally {
    await svc.stop();
  }
}

/** N Report documents straight into the collection, R of them the reader's; ownership through the API, as a bulk import would. */
async function loadReports(b: Bench): Promise<void> {
  const { call, admin, asAdmin, me } = b;
  // Documents straight into the collection; ownership tuples through the API, as a bulk import would.
  const mongo = new MongoClient(b.mongoUrl);
  await mongo.connect();
  const col = mongo.db().collection('Report');
  const t0 = Date.now();
  for (let i = 0; i < N; i += 1000) {
    await col.insertMany(Array.from({ length: Math.min(1000, N - i) }, (_, j) => ({ _id: `r${i + j}`, title: `Report ${i + j}`, n: i + j })) as never[]);
  }
  await mongo.close();
  const owners = Array.from({ length: 20 }, (_, k) => `User:other${k}`);
  for (let i = 0; i < N; i += 100) {
    const resources = Array.from({ length: Math.min(100, N - i) }, (_, j) => `Report:r${i + j}`);
    // Every (N/R)-th block of 100 is the reader's: R of N documents, spread over the id range.
    const subject = Math.floor(i / 100) % Math.round(N / R) === 0 ? me : owners[(i / 100) % owners.length]!;
    await call(admin, 'POST', '/authorization/relations/many', asAdmin, { subject, relation: 'owner', resources });
  }
  for (;;) {
    const s = await call(admin, 'GET', '/authorization/indexer/status', asAdmin);
    if (s.pending === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  say(`data: ${N} Report documents, ${R} readable by the user; loaded and indexed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Pages of the reader's Reports: reads only, then while another user creates a Report every 250 ms. */
async function pagesWhileWriting(b: Bench): Promise<void> {
  const { call, client, asUser } = b;
  const paging = async (label: string) => {
    const pages: number[] = [];
    let count = 0;
    for (let i = 0; i < 100; i++) {
      const skip = (i * 25 * 7) % Math.max(1, R - 25);
      const t = performance.now();
      const r = await call(client, 'GET', `/database/Report?skip=${skip}&limit=25`, asUser);
      pages.push(performance.now() - t);
      if (r.documents?.length !== 25) throw new Error(`unexpected page: ${JSON.stringify(r).slice(0, 200)}`);
      count = r.count;
    }
    say(`GET /database/Report, page of 25 (count ${count}), ${label}: first ${pages[0]!.toFixed(1)} ms, then ${fmt(pages.slice(1))}`);
  };
  // The first page computes the whole readable list; it is then cached in each process until a write changes it.
  await paging('reads only');
  // Another user creating a Report every 250 ms changes the type's rows, so some pages compute the list again.
  await call(client, 'POST', '/authentication/local/new', {}, { email: 'writer@bench.io', password: 'bench password' });
  const writer = await call(client, 'POST', '/authentication/local', {}, { email: 'writer@bench.io', password: 'bench password' });
  let writing = true;
  let written = 0;
  const writes = (async () => {
    while (writing) {
      await call(client, 'POST', '/database/Report', { authorization: `Bearer ${writer.accessToken}` }, { title: 'new', n: -1 });
      written++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await paging('while another user creates a Report every 250 ms');
  writing = false;
  await writes;
  say(`  (${written} Reports written meanwhile)`);
}

/** Checks on the admin and the client surface, cold and warm. */
async function checkLatencies(b: Bench): Promise<void> {
  const { call, admin, client, asAdmin, asUser, me } = b;
  const run = async (label: string, base: number, path: (i: number) => string, headers: Record<string, string>) => {
    const lat: number[] = [];
    let next = 0;
    const start = performance.now();
    await Promise.all(Array.from({ length: C }, async () => {
      while (next < 4000) {
        const i = next++;
        const t = performance.now();
        const r = await call(base, 'GET', path(i), headers);
        lat.push(performance.now() - t);
        if (typeof r.allowed !== 'boolean') throw new Error(`unexpected answer ${JSON.stringify(r)}`);
      }
    }));
    say(`${label} (c=${C}): ${fmt(lat)}  ${(4000 / ((performance.now() - start) / 1000)).toFixed(0)} checks/s`);
    return pct(lat, 0.5);
  };
  // Two sets of documents of the same shape, so each surface starts with a cold decision cache; then both again, warm.
  const doc = (i: number, off: number) => `Report:r${(i * 97 + off) % N}`;
  for (const pass of ['cold', 'warm']) {
    const a = await run(`admin GET /authorization/permissions/can, ${pass}`, admin, (i) => `/authorization/permissions/can?subject=${me}&permission=read&resource=${doc(i, 0)}`,
      asAdmin);
    const c = await run(`client GET /authorization/check, ${pass}      `, client, (i) => `/authorization/check?action=read&resource=${doc(i, 13)}`, asUser);
    say(`  client check p50 / admin can p50 (${pass}): ${(c / a).toFixed(2)}`);
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
