// `npm run bench:adversarial`: the index's adversarial shapes (issue 29) on a fresh stack through the HTTP API: an object
// with 10,000 readers, users in 500 teams, a team tree ten levels deep, an action anyone has on 2,000 pages. For each,
// cold checks one at a time (every pair asked once: the decision cache misses) and cold lists (each subject once).
import { parseArgs } from 'node:util';
import { fmt, say } from './report.js';
import { benchService } from './service.js';

const { values: args } = parseArgs({ options: { 'port-base': { type: 'string', default: '29700' } } });
const base = Number(args['port-base']);
const DOCUMENT = { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] }, permissions: { read: ['reader', 'owner', 'owner->read'], edit: ['owner'] } };
const PAGE = { name: 'Page', relations: { author: ['User'] }, permissions: { view: ['*'], write: ['author'] } };
const JOINERS = 20;

/** The four shapes: 10,000 readers of one document; JOINERS users each in the same 500 teams; a ten-level tree; 2,000 pages. */
function tuples(): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (let i = 0; i < 10_000; i++) out.push([`User:r${i}`, 'reader', 'Document:wide']);
  for (let i = 0; i < 500; i++) {
    for (let j = 0; j < JOINERS; j++) out.push([`User:joiner${j}`, 'member', `Team:j${i}`]);
    out.push([`Team:j${i}`, 'owner', `Document:j${i}`]);
  }
  for (let level = 0; level < 9; level++) out.push([`Team:l${level}`, 'owner', `Team:l${level + 1}`]);
  for (let i = 0; i < 200; i++) out.push([`User:root${i}`, 'member', 'Team:l0']);
  out.push(['Team:l9', 'owner', 'Document:deep']);
  for (let i = 0; i < 2000; i++) out.push([`User:a${i % 50}`, 'author', `Page:p${i}`]);
  return out;
}

async function main() {
  const svc = await benchService(`bench-adversarial-${base}`, { redis: base + 1, mongo: base + 2, postgres: base + 3, bolt: base + 4, http: base + 5 });
  const admin = `http://127.0.0.1:${svc.port('admin')}`;
  const headers = { masterkey: svc.config.MASTER_KEY, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${admin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    for (const def of [DOCUMENT, PAGE]) await call('POST', '/authorization/resources', def);
    const all = tuples();
    const t0 = Date.now();
    for (let at = 0; at < all.length; at += 1000) {
      await call('POST', '/authorization/relations/write', {
        updates: all.slice(at, at + 1000).map(([subject, relation, resource]) => ({ operation: 'create', subject, relation, resource })),
      });
    }
    for (;;) {
      const s = await call('GET', '/authorization/indexer/status');
      if (s.pending === 0 && !s.rebuild && !s.rebuildRequested) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    say(`loaded ${all.length} tuples, visible after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    /** Asks each path once, one at a time; `want` checks each answer. */
    const timed = async (label: string, paths: string[], want: (body: any) => boolean) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const lat: number[] = [];
      let wrong = 0;
      for (const p of paths) {
        const t = performance.now();
        const body = await call('GET', p);
        lat.push(performance.now() - t);
        if (!want(body)) wrong++;
      }
      say(`${label.padEnd(64)} ${fmt(lat)}  (${paths.length} asked, ${wrong} wrong)`);
    };
    const can = (s: string, a: string, o: string) => `/authorization/permissions/can?subject=${s}&permission=${a}&resource=${o}`;
    const objects = (s: string, a: string, type: string) => `/authorization/permissions/objects?subject=${s}&permission=${a}&resourceType=${type}&limit=100`;
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    say('cold checks, one at a time (each pair asked once):');
    await timed('  10,000 readers: a reader, and a stranger, on Document:wide', range(2000).map((i) => can(i % 2 ? `User:r${i * 5}` : `User:x${i}`, 'read', 'Document:wide')),
      (b) => typeof b.allowed === 'boolean');
    await timed('  500 teams: a member of all of them on one of their documents', range(2000).map((i) =>
      can(`User:joiner${i % JOINERS}`, 'read', `Document:j${Math.floor(i / 4) % 500}`)
    ), (b) => b.allowed === true);
    await timed('  ten-level tree: a member of the root team on the deepest document', range(200).map((i) => can(`User:root${i}`, 'read', 'Document:deep')), (b) =>
      b.allowed === true);
    await timed('  public action on 2,000 pages: anyone views a page', range(2000).map((i) => can(`User:nobody${i}`, 'view', `Page:p${i}`)), (b) => b.allowed === true);
    say('cold lists, one at a time (each subject asked once; first page of 100 and the count):');
    await timed('  10,000 readers: who can read Document:wide (users)', range(1).map(() =>
      `/authorization/permissions/subjects?permission=read&resource=Document:wide&subjectType=User&limit=100`
    ), (b) => b.count === 10_000);
    await timed('  500 teams: the documents a member of all of them can read', range(JOINERS).map((j) => objects(`User:joiner${j}`, 'read', 'Document')), (b) => b.count === 500);
    await timed('  ten-level tree: the documents a member of the root can read', range(50).map((i) => objects(`User:root${i}`, 'read', 'Document')), (b) => b.count === 1);
    await timed('  public action on 2,000 pages: the pages anyone can view', range(50).map((i) => objects(`User:nobody${i + 5000}`, 'view', 'Page')), (b) => b.count === 2000);
  } finally {
    await svc.stop();
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
