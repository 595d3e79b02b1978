// `npm run bench:single-writes`: single writes through the admin REST surface, each answered once its index work is
// done, one writer at a time and eight at once, on a fresh stack (issue 29: what a write costs end to end).
import { parseArgs } from 'node:util';
import { benchService } from './service.js';
import { say } from './report.js';

const { values: args } = parseArgs({ options: {
  writes: { type: 'string', default: '300' },
  'port-base': { type: 'string', default: '29780' },
} });
const WRITES = Number(args.writes);
const base = Number(args['port-base']);

const folder = {
  name: 'Folder',
  relations: { parent: ['Folder'], viewer: ['User', 'Team'], owner: ['User', 'Team'] },
  permissions: { view: ['viewer', 'owner', 'viewer->read', 'owner->read', 'parent->view', 'edit'], edit: ['owner', 'owner->edit', 'parent->edit'] },
};
/** The kinds written in turn: a leaf (no flats change), a team on a folder, a user on a folder. */
const KINDS = ['User#member@Team', 'Team#viewer@Folder', 'User#viewer@Folder'] as const;

const svc = await benchService('single-writes', { redis: base + 1, mongo: base + 2, postgres: base + 3, bolt: base + 4, http: base + 5 });
const admin = `http://127.0.0.1:${svc.port('admin')}`;
const headers = { masterkey: svc.config.MASTER_KEY, 'content-type': 'application/json' };
async function post(path: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(admin + path, { method: 'POST', headers, body: JSON.stringify(body) });
  await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status}`);
  return performance.now() - t0;
}

const tuple = (tag: string, i: number) => {
  const kind = KINDS[i % 3]!;
  const body = kind === 'User#member@Team' ? { subject: `User:${tag}u${i}`, relation: 'member', resource: `Team:t${i % 6}` }
    : kind === 'Team#viewer@Folder' ? { subject: `Team:t${i % 6}`, relation: 'viewer', resource: `Folder:${tag}f${i % 10}` }
    : { subject: `User:${tag}u${i}`, relation: 'viewer', resource: `Folder:${tag}f${i % 10}` };
  return { kind, body };
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

/** `writers` clients writing WRITES tuples in all; per kind, the median and 99th percentile of the answers. */
async function run(tag: string, writers: number) {
  const byKind = new Map<string, number[]>(KINDS.map((k) => [k, []]));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: writers }, async () => {
    for (let i = next++; i < WRITES; i = next++) {
      const { kind, body } = tuple(tag, i);
      byKind.get(kind)!.push(await post('/authorization/relations', body));
    }
  }));
  const s = (performance.now() - t0) / 1000;
  say(`${writers} writer(s): ${WRITES} writes in ${s.toFixed(1)} s, ${(WRITES / s).toFixed(1)} writes/s`);
  for (const [kind, ms] of byKind) say(`  ${kind.padEnd(20)} p50 ${pct(ms, 50).toFixed(0).padStart(4)} ms   p99 ${pct(ms, 99).toFixed(0).padStart(4)} ms`);
}

try {
  await post('/authorization/resources', folder);
  say(`single writes, one run on this machine (the load generator shares its cores with the stack); ${WRITES} each`);
  // The first writes on a fresh Neo4j plan and compile its statements: a warm-up of the same shape, left out.
  await run('warm', 1);
  await run('one', 1);
  await run('eight', 8);
} finally {
  await svc.stop();
}
process.exit(0);
