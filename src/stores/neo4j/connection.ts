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

/** Statements as they read their values from one map, by statement and by which parameters are in it. */
const mapped = new Map<string, string>();
const MAPPED_MAX = 2000;
const isNumber = (v: unknown) => typeof v === 'number' || neo4j.isInt(v);

/**
 * Neo4j caches a plan per statement and per its parameters' types and sizes: each string's and list's length is
 * bucketed (0, 1, 2-10, 11-100, ...), so `User:u1` and `Document:d123` as the subject of one list were two plans, each
 * planned anew (0.7-2.3 s for a check or list statement; 22 s for a first one on a cold JVM). Inside one map parameter
 * they are not: every value but the numbers (SKIP, LIMIT, generations) moves into `$p`, and `$name` reads `$p.name`.
 * The plans are the same (the index seeks take `$p.subject` as they took `$subject`).
 */
export function inOneMap(query: string, params: Record<string, unknown>): [string, Record<string, unknown>] {
  const p: Record<string, unknown> = {};
  const top: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) (isNumber(v) ? top : p)[k] = v;
  const names = Object.keys(p);
  if (names.length === 0) return [query, params];
  const key = `${names.sort().join(',')}\n${query}`;
  let text = mapped.get(key);
  if (text === undefined) {
    const inMap = new Set(names);
    text = query.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => (inMap.has(name) ? `$p.${name}` : whole));
    if (mapped.size >= MAPPED_MAX) mapped.clear();
    mapped.set(key, text);
  }
  return [text, { ...top, p }];
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
      const [text, values] = inOneMap(query, params);
      return await session.run(text, values);
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
