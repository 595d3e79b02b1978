// Which store stack a jest worker uses: the setup starts one per worker on ports of its own and hands their URLs over.
import { fileURLToPath } from 'node:url';

export const STACKS_ENV = 'AUTHZ_TEST_STACKS';

export interface WorkerStack {
  MONGO_URL: string;
  NEO4J_URI: string;
  REDIS_URL: string;
  NEO4J_BROWSER_URL?: string;
}

/** The test stacks' Neo4j settings (NEO4J_CONF), unless the environment names a file of its own. */
export const testNeo4jConf = (env: NodeJS.ProcessEnv = process.env) => env.NEO4J_CONF ?? fileURLToPath(new URL('./neo4j-test.conf', import.meta.url));

/**
 * The test stacks' Neo4j: their settings file, and the JIT's first tier only (unless NEO4J_JAVA_OPTS says otherwise). A
 * test Neo4j lives minutes and plans hundreds of statements once each; C2's compiles never paid back there: three
 * stack-tier files took 191 CPU-s with both tiers and 139 with C1 alone, the wall 114 s and 101 s.
 */
export const testNeo4jEnv = (env: NodeJS.ProcessEnv = process.env) => ({
  NEO4J_CONF: testNeo4jConf(env),
  NEO4J_JAVA_OPTS: env.NEO4J_JAVA_OPTS ?? '-XX:TieredStopAtLevel=1',
});

/** The first stack's ports; TEST_PORT_OFFSET moves all of them, so two checkouts can run their suites at once. */
const BASE = { redis: 16379, mongo: 27117, postgres: 27132, bolt: 17687, http: 17474 };
/** The store-fault test's own stack, which it kills and restarts (moved by TEST_PORT_OFFSET too): every port ends in 5, which no
 * suite stack's port does, and no two end in the same two digits. */
const FAULTS = { redis: 19305, mongo: 19015, postgres: 19035, bolt: 19685, http: 19455 };

function offset(env: NodeJS.ProcessEnv): number {
  const o = Number(env.TEST_PORT_OFFSET ?? 0);
  // Multiples of 100 keep two checkouts' stacks apart (stack i adds 10 i); the ceiling keeps every port below Linux's
  // ephemeral range (32768-60999), where a restarted server could find its port taken by some client's socket.
  if (!Number.isInteger(o) || o < 0 || o > 2900 || o % 100 !== 0) throw new Error(`TEST_PORT_OFFSET must be a multiple of 100 from 0 to 2900, not ${env.TEST_PORT_OFFSET}`);
  return o;
}

const shifted = (ports: typeof BASE, by: number) => Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, v + by])) as typeof BASE;

/** Stack `i` sits 10 ports above stack `i - 1`: no two of any stacks' ports meet (their last digits differ by kind). */
export function stackPorts(i: number, env: NodeJS.ProcessEnv = process.env) {
  return shifted(BASE, offset(env) + i * 10);
}

/** Ports of the store-fault test's own stack. */
export function faultStackPorts(env: NodeJS.ProcessEnv = process.env) {
  return shifted(FAULTS, offset(env));
}

/** The communications-fault test's own Redis (it kills it; the other stores are its worker's): ends in 25, as nothing else. */
export function communicationsFaultRedisPort(env: NodeJS.ProcessEnv = process.env) {
  return 19325 + offset(env);
}

/** One stack per jest worker: TEST_STACKS, else the workers jest was given (JEST_STACK_WORKERS, set by jest.config.js). */
export function stackCount(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.TEST_STACKS ?? env.JEST_STACK_WORKERS ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error(`TEST_STACKS must be a whole number from 1 to 8, not ${env.TEST_STACKS}`);
  return n;
}

/** The stack of the worker this runs in (JEST_WORKER_ID is 1-based), written into process.env before a test file loads. */
export function useWorkerStack(env: NodeJS.ProcessEnv = process.env): void {
  const raw = env[STACKS_ENV];
  if (!raw) return; // no stack was started (the fast tier), or the URLs were given from outside
  const stacks = JSON.parse(raw) as WorkerStack[];
  const worker = Math.max(1, Number(env.JEST_WORKER_ID ?? 1));
  const mine = stacks[(worker - 1) % stacks.length]!;
  for (const [k, v] of Object.entries(mine)) if (v !== undefined) env[k] = v;
}

/**
 * The folder under .data/ for a test's store data: the offset is part of its name, so two runs of one checkout on
 * different offsets never wipe each other's databases (they did: a second run recreated the first's PostgreSQL).
 */
export function stackDataName(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const o = offset(env);
  return o === 0 ? name : `${name}-o${o}`;
}
