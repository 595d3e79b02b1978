// `npm run bench:index-shapes -- --tuples 100000 --variants today,flat-nodes,leopard --checks 200`: three shapes of the
// precomputed index, each on a fresh Neo4j of its own: load cost, store, memory, PROFILE db hits of can and list (issue 29).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Evaluator } from '../src/engine/evaluator.js';
import type { Tuple } from '../src/engine/ids.js';
import { Model } from '../src/engine/model.js';
import { ROOT } from '../infra/stack.js';
import { cpuSeconds } from './cpu.js';
import { dataSet, DOCUMENT } from './data-set.js';
import { measureReads, type ReadFigures } from './index-shapes/reads.js';
import { sampleChecks, sampleLists, type Check, type ListCase } from './index-shapes/sample.js';
import { counts, freshNeo4j, processCpuSeconds, pssMiB, sizingFor, storeMiB } from './index-shapes/server.js';
import { shapeVariant } from './index-shapes/shapes.js';
import { tallyStatements } from './index-shapes/statements.js';
import { todayVariant } from './index-shapes/today.js';
import type { Variant } from './index-shapes/variant.js';
import { say } from './report.js';

const { values: args } = parseArgs({ options: {
  tuples: { type: 'string', default: '100000' },
  variants: { type: 'string', default: 'today,flat-nodes,leopard' },
  checks: { type: 'string', default: '200' },
  unit: { type: 'string', default: '2000' },
  // Bolt of the first variant's Neo4j (HTTP one above); the next variant's 10 ports up.
  'port-base': { type: 'string', default: '29700' },
} });
const N = Number(args.tuples);
const UNIT = Number(args.unit);
const VARIANTS = args.variants.split(',');

interface Row {
  name: string;
  wallS: number;
  cpuS: number;
  storeMiB: number;
  nodes: number;
  rels: number;
  pssMiB: number;
  statements: string;
  reads: ReadFigures;
}

async function open(name: string, uri: string, model: Model): Promise<Variant> {
  if (name === 'today') return todayVariant(uri, model);
  if (name === 'flat-nodes' || name === 'leopard') return shapeVariant(name, uri, model);
  throw new Error(`unknown variant ${name} (today, flat-nodes, leopard)`);
}

/** Loads every tuple in units, in the data set's order; progress about every 10%. */
async function load(v: Variant, tuples: Tuple[]): Promise<void> {
  const units = Math.ceil(tuples.length / UNIT);
  const t0 = Date.now();
  for (let u = 0; u < units; u++) {
    await v.loadUnit(tuples.slice(u * UNIT, (u + 1) * UNIT));
    if ((u + 1) % Math.max(1, Math.round(units / 10)) === 0 || u + 1 === units) {
      say(`  ${v.name}: ${Math.min(tuples.length, (u + 1) * UNIT)} / ${tuples.length} tuples, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
}

async function runVariant(name: string, i: number, model: Model, tuples: Tuple[], checks: Check[], lists: ListCase[]): Promise<Row> {
  say(`${name}:`);
  const server = await freshNeo4j(join(ROOT, '.data', 'index-shapes', name), Number(args['port-base']) + 10 * i, N);
  let row: Omit<Row, 'storeMiB'>;
  try {
    const v = await open(name, server.uri, model);
    const tally = tallyStatements(v.driver, v.statements, () => processCpuSeconds(server.pid));
    const cpu0 = cpuSeconds({ neo4j: server.pid }).neo4j!;
    const t0 = performance.now();
    await load(v, tuples);
    const wallS = (performance.now() - t0) / 1000;
    const cpuS = cpuSeconds({ neo4j: server.pid }).neo4j! - cpu0;
    // The machine is shared: how busy it was says how far the wall times can be read.
    say(`  load average after the load (1, 5 min): ${loadavg().slice(0, 2).map((x) => x.toFixed(1)).join(', ')}`);
    tally.stop();
    const pss = pssMiB(server.pid);
    const counted = await counts(v.driver);
    const reads = await measureReads(v, checks, lists);
    await v.driver.close();
    if (reads.wrong.length) say(`  ${name} differs from the evaluator on ${reads.wrong.length} answers:\n    ${reads.wrong.slice(0, 10).join('\n    ')}`);
    row = { name, wallS, cpuS, ...counted, pssMiB: pss, statements: tally.summary(), reads };
  } finally {
    await server.stack.stop();
  }
  return { ...row, storeMiB: storeMiB(server.home) };
}

function report(rows: Row[], checks: Check[]): void {
  const f = (x: number, d = 0) => x.toFixed(d);
  say(
    '\n| variant | load wall s | tuples/s | Neo4j CPU s | Neo4j CPU ms/tuple | store MiB | nodes | relationships | Neo4j PSS MiB | can db hits mean / max | list db hits mean | check p50 ms cold |',
  );
  say('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    say(`| ${r.name} | ${f(r.wallS, 1)} | ${f(N / r.wallS)} | ${f(r.cpuS, 1)} | ${f((1000 * r.cpuS) / N, 3)} | ${f(r.storeMiB, 1)} | ${r.nodes} | ${r.rels} | `
      + `${f(r.pssMiB)} | ${f(r.reads.canHitsMean, 1)} / ${r.reads.canHitsMax} | ${f(r.reads.listHitsMean)} | ${f(r.reads.checkP50Ms, 2)} |`);
  }
  say(`\nchecks: ${checks.length} (${checks.filter((c) => c.how === 'direct').length} allowed through a reader tuple, `
    + `${checks.filter((c) => c.how === 'inherited').length} inherited through the team tree, ${checks.filter((c) => !c.allowed).length} denied)`);
  for (const r of rows) say(`statements of ${r.name} during the load: ${r.statements}`);
  for (const r of rows) {
    say(`\n### ${r.name}\n\ncan:\n${r.reads.canText}\n\nlist:\n${r.reads.listText}`);
    say(`\nPROFILE ${r.reads.canPlan.join('\n  ')}\n\nPROFILE ${r.reads.listPlan.join('\n  ')}`);
  }
}

async function main() {
  const model = new Model([DOCUMENT]);
  const set = dataSet(N);
  const tuples = set.tuples.map(([subject, relation, resource]) => ({ subject, relation, resource }));
  const evaluator = new Evaluator(model, tuples);
  const checks = sampleChecks(set, evaluator, Number(args.checks));
  const lists = sampleLists(set, evaluator);
  const sized = sizingFor(N);
  say(`Neo4j for every variant: heap ${sized.heapMb}m, page cache ${sized.pagecacheMb} MiB; units of ${UNIT} tuples`);
  const rows: Row[] = [];
  for (const [i, name] of VARIANTS.entries()) rows.push(await runVariant(name, i, model, tuples, checks, lists));
  report(rows, checks);
  const wrong = rows.filter((r) => r.reads.wrong.length);
  if (wrong.length) throw new Error(`answers differ from the evaluator's: ${wrong.map((r) => `${r.name} (${r.reads.wrong.length})`).join(', ')}`);
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
