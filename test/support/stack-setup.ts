// Jest global setup: one store stack per jest worker (testcontainers when a Docker engine has the images, else the local
// launchers), so workers never share a database, a Redis or a Neo4j store.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { removeCluster } from '../../infra/postgres.js';
import { prepareEverything, ROOT, startStack, type StackPorts, type StartedStack } from '../../infra/stack.js';
import { connectNeo4j } from '../../src/stores/neo4j/connection.js';
import { neo4jIndexStore } from '../../src/stores/neo4j/index-store.js';
import { warmIndexReads } from '../../src/stores/neo4j/warm.js';
import { startContainers } from './containers.js';
import { stackCount, stackDataName, stackPorts, STACKS_ENV, testNeo4jEnv, type WorkerStack } from './test-stacks.js';

declare global {
  var __AUTHZ_STACKS__: Array<{ stack: StartedStack; dataDir?: string }> | undefined;
}

/**
 * Runs the index's check and list reads once on a stack's Neo4j, so their plans are cached before the first test. Not
 * the start's EXPLAIN of every statement: an EXPLAIN is a cache entry of its own, planned with no parameters, and
 * serves no real call; on two stacks at once it took about 45 of the setup's 70 s.
 */
async function warmOnce(uri: string): Promise<void> {
  const driver = await connectNeo4j(uri, process.env.NEO4J_USER ?? 'neo4j', process.env.NEO4J_PASSWORD ?? '');
  try {
    await warmIndexReads(neo4jIndexStore(driver));
  } finally {
    await driver.close();
  }
}

async function localStack(i: number, ports: StackPorts, log: (l: string) => void) {
  const dataDir = join(ROOT, '.data', 'test', stackDataName(`s${i}`));
  rmSync(dataDir, { recursive: true, force: true });
  removeCluster(join(dataDir, 'postgres'));
  // The tests' stores are small: Neo4j is sized for 50,000 tuples, not the million `npm start` plans for.
  const stack = await startStack({ dataDir, ports, env: { NEO4J_EXPECTED_TUPLES: '50000', ...process.env, ...testNeo4jEnv() }, log: (l) => log(`s${i}: ${l}`) });
  return { stack, dataDir };
}

export default async function setup() {
  const log = (l: string) => process.stderr.write(`[test stack] ${l}\n`);
  const t0 = Date.now();
  const count = stackCount();
  const container = await startContainers(log);
  const stacks: Array<{ stack: StartedStack; dataDir?: string }> = [];
  // Set before any start can fail: jest runs no global teardown after a failed setup, so a failure stops them here.
  globalThis.__AUTHZ_STACKS__ = stacks;
  try {
    // The builds (FerretDB, Neo4j jars) happen once, first; then every stack starts beside the others (one after the
    // other, the second waited 35 s for the first).
    if (container) stacks.push({ stack: container });
    else prepareEverything(process.env, log);
    const more = (i: number) => (container ? startContainers(log).then((c) => ({ stack: c! })) : localStack(i, stackPorts(i), log));
    const first = container ? 1 : 0;
    const rest = await Promise.allSettled(Array.from({ length: count - first }, (_, i) => more(i + first)));
    for (const r of rest) if (r.status === 'fulfilled') stacks.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (e) {
    await Promise.allSettled(stacks.map(({ stack }) => stack.stop()));
    throw e;
  }
  // Once per stack, before the tests: the test services skip the warm each start would do (NEO4J_WARM_PLANS=0,
  // test/support/service.ts), which took 3-5 s of Neo4j's CPU a start. Run beside the first tests instead, it saves
  // about 30 s, but a first test then met cold plans: a read asking for a write's revision may time out on them.
  const warming = Date.now();
  // A failure leaves the plans cold, which slows the first tests but fails none by itself (and a global setup that
  // throws gets no teardown, leaving the servers running).
  await Promise.all(stacks.map(({ stack }) => warmOnce(stack.urls.NEO4J_URI).catch((e: Error) => log(`warming Neo4j failed: ${e.message}`))));
  log(`Neo4j plans warmed in ${((Date.now() - warming) / 1000).toFixed(1)} s`);
  const forWorkers: WorkerStack[] = stacks.map(({ stack }) => ({ ...stack.urls, NEO4J_BROWSER_URL: stack.browserUrl }));
  process.env[STACKS_ENV] = JSON.stringify(forWorkers);
  // In band (one worker) the tests run in this process: the first stack's URLs are its environment too.
  Object.assign(process.env, stacks[0]!.stack.urls);
  if (stacks[0]!.stack.browserUrl) process.env.NEO4J_BROWSER_URL = stacks[0]!.stack.browserUrl;
  log(`${count} stack(s) ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (started: ${stacks.map(({ stack }) => stack.started.join(', ') || 'none').join(' | ')})`);
}
