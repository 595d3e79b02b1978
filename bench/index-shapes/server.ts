// A fresh Neo4j for one variant (infra/stack.ts's launcher, nothing else started), and what it holds and uses after a load.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { neo4jSizing, startStack, STORE_BYTES_PER_TUPLE, type StartedStack } from '../../infra/stack.js';
import { say } from '../report.js';
import { descendants } from '../soak-memory.js';

export interface Server {
  stack: StartedStack;
  uri: string;
  pid: number;
  home: string;
}

/** The same heap and page cache for every variant: what `npm start` picks for the store `tuples` will make today. */
export const sizingFor = (tuples: number) => neo4jSizing(tuples * STORE_BYTES_PER_TUPLE, totalmem());

/** Starts Neo4j on an empty store under `dataDir` (removed first), on `bolt` and `bolt + 1`. */
export async function freshNeo4j(dataDir: string, bolt: number, tuples: number): Promise<Server> {
  rmSync(dataDir, { recursive: true, force: true });
  const sized = sizingFor(tuples);
  // MONGO_URL and REDIS_URL set: startStack starts only what has no URL, here Neo4j alone.
  const env = { ...process.env, NEO4J_HEAP: `${sized.heapMb}m`, NEO4J_PAGECACHE_MB: String(sized.pagecacheMb), MONGO_URL: 'mongodb://unused', REDIS_URL: 'redis://unused' };
  const stack = await startStack({ dataDir, env, log: (l) => say(`  ${l}`), ports: { redis: 0, mongo: 0, postgres: 0, bolt, http: bolt + 1 } });
  const pid = stack.pids?.neo4j;
  if (pid === undefined) {
    await stack.stop();
    throw new Error(`a Neo4j already listens on ${bolt}: stop it first`);
  }
  return { stack, uri: `bolt://127.0.0.1:${bolt}`, pid, home: join(dataDir, 'neo4j') };
}

export const driverFor = (uri: string): Driver => neo4j.driver(uri, undefined, { disableLosslessIntegers: true });

/** Node and relationship counts. */
export async function counts(driver: Driver) {
  const nodes = Number((await driver.executeQuery('MATCH (n) RETURN count(n) AS c')).records[0]!.get('c'));
  const rels = Number((await driver.executeQuery('MATCH ()-[r]->() RETURN count(r) AS c')).records[0]!.get('c'));
  return { nodes, rels };
}

/**
 * MiB on disk (du) of the database directory (transaction logs live elsewhere). Community has no `db.checkpoint()`:
 * call this once Neo4j has stopped, since a clean shutdown checkpoints.
 */
export function storeMiB(home: string): number {
  const du = spawnSync('du', ['-sk', join(home, 'data', 'databases', 'neo4j')], { encoding: 'utf8' });
  return Number(du.stdout.split('\t')[0]) / 1024;
}

/** CPU seconds of one process (all its threads) so far: cheap enough to read around every statement. */
export function processCpuSeconds(pid: number): number {
  const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in USER_HZ ticks
}

/** Proportional set size of a process and everything it forked, in MiB (/proc/<pid>/smaps_rollup). */
export function pssMiB(root: number): number {
  const pss = (pid: number): number => {
    try {
      return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0; /* exited */
    }
  };
  return [root, ...descendants(root)].reduce((a, pid) => a + pss(pid), 0) / 1024;
}
