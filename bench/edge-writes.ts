// `npm run bench:edge-writes`: what the projection's put-edges costs a single write and a 2,000-tuple unit, with and
// without the trigram text index behind the admin tuple search, and with the search text left to the catch-up (today's
// write: searchPending, cypher/listing.cypher), on a fresh Neo4j with the service's schema (issue 29).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { int as neo4jInt, type Driver } from 'neo4j-driver';
import { ROOT } from '../infra/stack.js';
import { connectNeo4j, loadCypher } from '../src/stores/neo4j/connection.js';
import { putEdgesStatements } from '../src/stores/neo4j/graph.js';
import { freshNeo4j } from './index-shapes/server.js';
import { say } from './report.js';

const { values: args } = parseArgs({ options: {
  singles: { type: 'string', default: '300' },
  units: { type: 'string', default: '10' },
  'port-base': { type: 'string', default: '29750' },
} });
const SINGLES = Number(args.singles);
const UNITS = Number(args.units);

// The statement as the projection splices it for tuples (src/stores/neo4j/graph.ts); the rows carry the labels.
const put = loadCypher('projection.cypher').get('put-edges')!.replace('__EDGE__', 'TUPLE').replace('__NAME_PROPERTY__', 'relation');
/** The write before the catch-up: the search text in the write's own transaction. */
const WITH_LIST_FIELDS = put.replace('__SET__', 'SET t.resourceType = row.resourceType, t.keyLower = toLower(row.key)');
/** Today's write (graph.ts): the search text left to the catch-up. */
const DEFERRED = putEdgesStatements()[0]!;
const CATCH_UP = loadCypher('listing.cypher').get('catch-up')!;
const BARE = put.replace('__SET__', '');

let n = 0;
/** A new tuple each call, on one of 50 teams. */
const row = () => {
  n++;
  const team = `t${n % 50}`;
  return { subject: `User:u${n}`, subjectType: 'User', subjectId: `u${n}`, resource: `Team:${team}`, resourceType: 'Team', resourceId: team, key: `User:u${n}#member@Team:${team}`,
    name: 'member' };
};

/** Mean ms of `f` over `k` calls, after min(50, k) calls to warm the plan and the JIT. */
async function mean(f: () => Promise<unknown>, k: number): Promise<number> {
  for (let i = 0; i < Math.min(50, k); i++) await f();
  const t0 = performance.now();
  for (let i = 0; i < k; i++) await f();
  return (performance.now() - t0) / k;
}

async function measure(driver: Driver, label: string, q = WITH_LIST_FIELDS) {
  const single = () => driver.executeQuery(q, { mark: '', rows: [row()] });
  const unit = () => driver.executeQuery(q, { mark: '', rows: Array.from({ length: 2000 }, row) });
  const s = await mean(single, SINGLES);
  const u = await mean(unit, UNITS);
  say(`${label.padEnd(52)} single ${s.toFixed(2)} ms   unit of 2,000 ${u.toFixed(0)} ms (${Math.round(2000 / u * 1000).toLocaleString('en-US')} tuples/s)`);
}

/** The catch-up of everything the deferred writes left, in passes of 5,000 as the service runs it: ms a tuple. */
async function catchUp(driver: Driver) {
  const t0 = performance.now();
  let total = 0;
  for (let n = 5000; n === 5000;) {
    n = Number((await driver.executeQuery(CATCH_UP, { limit: neo4jInt(5000) })).records[0]!.get('n'));
    total += n;
  }
  const ms = performance.now() - t0;
  say(
    `${'  catch-up of what they left (passes of 5,000)'.padEnd(52)} ${total.toLocaleString('en-US')} tuples in ${ms.toFixed(0)} ms (${
      (ms / Math.max(1, total) * 1000).toFixed(1)
    } µs a tuple)`,
  );
}

const server = await freshNeo4j(join(ROOT, '.data', 'edge-writes'), Number(args['port-base']), 100_000);
const driver = await connectNeo4j(server.uri, 'neo4j', '');
try {
  say(`put-edges, one run on this machine (executeQuery, as graph.ts writes); ${SINGLES} singles and ${UNITS} units each`);
  // Neo4j's JIT takes thousands of statements to settle: the first figures of a cold server were 60% above later ones.
  for (let i = 0; i < 1500; i++) await driver.executeQuery([BARE, WITH_LIST_FIELDS, DEFERRED][i % 3]!, { mark: '', rows: [row()] });
  await catchUp(driver);
  for (let i = 0; i < 10; i++) await driver.executeQuery(WITH_LIST_FIELDS, { mark: '', rows: Array.from({ length: 2000 }, row) });
  const bare = await mean(() => driver.executeQuery(BARE, { mark: '', rows: [row()] }), SINGLES);
  say(`${'without the list fields (no SET)'.padEnd(52)} single ${bare.toFixed(2)} ms`);
  for (let round = 1; round <= 2; round++) {
    await measure(driver, `round ${round}: list fields, text index (before)`);
    await driver.executeQuery('DROP INDEX tuple_search IF EXISTS');
    await measure(driver, `round ${round}: list fields, no text index`);
    await driver.executeQuery('CREATE TEXT INDEX tuple_search IF NOT EXISTS FOR ()-[t:TUPLE]-() ON (t.keyLower)');
    await driver.executeQuery('CALL db.awaitIndexes(600)');
    await measure(driver, `round ${round}: search text deferred (today)`, DEFERRED);
    await catchUp(driver);
  }
} finally {
  await driver.close();
  await server.stack.stop();
}
