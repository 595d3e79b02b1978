// Connects to Neo4j and applies the constraint and index statements of cypher/schema.cypher.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { ROOT } from '../../root.js';

export const CYPHER_DIR = join(ROOT, 'cypher');

/** A named statement from a .cypher file: blocks start with `// name: <name>`. */
export function loadCypher(file: string): Map<string, string> {
  const text = readFileSync(join(CYPHER_DIR, file), 'utf8');
  const out = new Map<string, string>();
  for (const block of text.split(/^\/\/ name: /m).slice(1)) {
    const nl = block.indexOf('\n');
    out.set(block.slice(0, nl).trim(), block.slice(nl + 1).trim().replace(/;\s*$/, ''));
  }
  return out;
}

export async function connectNeo4j(uri: string, user: string, password: string): Promise<Driver> {
  const driver = neo4j.driver(uri, password ? neo4j.auth.basic(user, password) : undefined, {
    disableLosslessIntegers: true,
    maxConnectionPoolSize: 50,
    connectionAcquisitionTimeout: 10000,
    // Fail fast while Neo4j is down (the default retries for 30 s); the change log keeps the work. Under 1 s, a
    // managed transaction is retried once (transient errors), so a call fails in about a second; at 2 s it took 3.
    maxTransactionRetryTime: 500,
    connectionTimeout: 3000,
  });
  await driver.verifyConnectivity();
  for (const statement of loadCypher('schema.cypher').values()) await driver.executeQuery(statement);
  if (process.env.AUTHZ_QUERY_TIMINGS === '1') (await import('./timings.js')).timeStatements(driver);
  return driver;
}

/**
 * Plans every statement of the projection and the index once (EXPLAIN runs nothing), and the spliced ones given. On a freshly started
 * Neo4j the first plans of a few dozen statements take seconds, which the first writes would otherwise wait
 * for (and a read asking for their revision would time out on).
 */
export async function warmNeo4j(driver: Driver, spliced: string[] = []): Promise<number> {
  let planned = 0;
  const statements = ['projection.cypher', 'index.cypher', 'listing.cypher'].flatMap((file) => [...loadCypher(file).values()])
    // A label or a tail is spliced in first (`spliced` has those); a batched fill runs once, in an auto-commit transaction.
    .filter((statement) => !statement.includes('__') && !statement.includes('IN TRANSACTIONS'));
  for (const statement of [...statements, ...spliced]) {
    await driver.executeQuery(`EXPLAIN ${statement}`).then(() => {
      planned++;
    }, () => undefined);
  }
  return planned;
}

/**
 * Reads as auto-commit queries: one round trip and no bookmark bookkeeping. A cold check measured 1,300 a second
 * this way against 690 through executeQuery's managed transaction. Neo4j here is one server, so a read sees every
 * write committed before it without bookmarks.
 */
export function reader(driver: Driver) {
  return async (query: string, params: Record<string, unknown>) => {
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      return await session.run(query, params);
    } finally {
      await session.close();
    }
  };
}

/** The oldest Neo4j whose Cypher has what the statements use (dynamic labels in put-edges: `SET n:$(…)`). */
export const NEO4J_MIN_VERSION = [5, 26] as const;

/**
 * Refuses to start on an older Neo4j, which would plan every statement but put-edges (warmNeo4j passes over statements
 * that fail to plan) and then fail each write. Reachable Neo4j servers only: a server that is down fails elsewhere first.
 */
export async function requireNeo4jVersion(driver: Driver): Promise<void> {
  const r = await driver.executeQuery("CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v");
  const v = String(r.records[0]?.get('v') ?? '');
  const [major = 0, minor = 0] = v.split('.').map(Number);
  const [wantMajor, wantMinor] = NEO4J_MIN_VERSION;
  if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
    throw new Error(`Neo4j ${v || '(version unknown)'} is too old: this service needs ${wantMajor}.${wantMinor} or later`);
  }
}

export async function pingNeo4j(driver: Driver): Promise<void> {
  await driver.executeQuery('RETURN 1');
}
