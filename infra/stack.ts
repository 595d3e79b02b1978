// Builds (once, cached under .cache/) and starts the local Redis, FerretDB (on PostgreSQL) and Neo4j servers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { neo4jClassDir } from './neo4j-class.js';
import { installPostgres, postgresCommand } from './postgres.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.cache');
const NEO4J_LIB = join(CACHE, 'neo4j-lib');
const FERRET_BIN = join(CACHE, 'bin', 'ferretdb-dev');

export interface StackPorts {
  redis: number;
  mongo: number;
  /** PostgreSQL, FerretDB's storage (not started when the storage is SQLite). */
  postgres: number;
  bolt: number;
  http: number;
}

export interface StartedStack {
  urls: { MONGO_URL: string; NEO4J_URI: string; REDIS_URL: string };
  started: string[];
  stop(): Promise<void>;
  /** Kills one server this call started (fault tests); `startStack` again brings it back on the same port. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Process ids of the servers this call started (the bench reads their CPU time). */
  pids?: Record<string, number>;
  /** Neo4j Browser, where the stack serves it. */
  browserUrl?: string;
}

type Log = (line: string) => void;

function run(cmd: string, args: string[], cwd: string, log: Log): void {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Installs or builds whatever is missing; a no-op on a warm machine. */
export function prepare(needs: { redis: boolean; mongo: boolean; neo4j: boolean; postgres: boolean }, log: Log): void {
  if (needs.redis && !has('redis-server')) {
    log('installing redis-server (Debian package)');
    run('sh', ['-c', 'apt-get install -y redis-server || (apt-get update && apt-get install -y redis-server)'], ROOT, log);
  }
  if (needs.postgres) installPostgres(log);
  if (needs.mongo) {
    const src = join(ROOT, 'infra', 'ferretdb');
    const newest = Math.max(...['main.go', 'go.mod', 'go.sum'].map((f) => statSync(join(src, f)).mtimeMs));
    if (!existsSync(FERRET_BIN) || statSync(FERRET_BIN).mtimeMs < newest) {
      log('building FerretDB v1 (Go module proxy; first time only)');
      run('go', ['build', '-o', FERRET_BIN, '.'], src, log);
    }
  }
  if (needs.neo4j) {
    const pom = join(ROOT, 'infra', 'neo4j', 'pom.xml');
    const stamp = join(NEO4J_LIB, '.pom');
    const wanted = readFileSync(pom, 'utf8');
    if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted) {
      log('fetching Neo4j Community jars from Maven Central (first time only, ~140 MB)');
      run('mvn', ['-q', '-B', '-f', pom, 'dependency:copy-dependencies', `-DoutputDirectory=${NEO4J_LIB}`, '-DincludeScope=runtime', '-Dmdep.overWriteReleases=true'], ROOT, log);
      writeFileSync(stamp, wanted);
    }
  }
}

/**
 * What a stack's start builds or fetches (FerretDB, PostgreSQL, the Neo4j jars and its launcher), done once before
 * several stacks start beside each other: each start would otherwise build the same files at once. A server given by
 * its URL needs nothing here, as in startStack.
 */
export function prepareEverything(env: NodeJS.ProcessEnv, log: Log): void {
  const mongo = !env.MONGO_URL;
  prepare({ redis: !env.REDIS_URL, mongo, neo4j: !env.NEO4J_URI, postgres: mongo && ferretStorage(env) === 'postgresql' }, log);
  if (!env.NEO4J_URI) neo4jClassDir(join(ROOT, 'infra', 'neo4j', 'Neo4jDev.java'), NEO4J_LIB, CACHE);
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((res) => {
    const s = connect({ port, host });
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

export async function waitForPort(port: number, child: ChildProcess, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before listening on ${port}`);
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} did not listen on port ${port} within ${timeoutMs / 1000} s`);
}

/** Starts a server in its own process group, output to `logFile`; `env` adds variables (secrets go there, never in argv). */
export function launch(name: string, cmd: string, args: string[], logFile: string, env: Record<string, string> = {}): ChildProcess {
  mkdirSync(dirname(logFile), { recursive: true });
  // Its own process group: Ctrl-C in the terminal reaches the service, which stops first; the servers after it.
  const child = spawn('sh', ['-c', `exec "$0" "$@" >>"${logFile}" 2>&1`, cmd, ...args], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
    env: { ...process.env, ...env },
  });
  child.on('error', (e) => console.error(`${name}: ${e.message}`));
  return child;
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.once('exit', () => {
      clearTimeout(timer);
      res();
    });
    child.kill(signal);
  });
}

const MiB = 1024 * 1024;

/** Bytes of every file under `dir` (0 when it does not exist yet). */
export function diskBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += diskBytes(path);
    else if (e.isFile()) {
      try {
        total += statSync(path).size;
      } catch { /* removed meanwhile */ }
    }
  }
  return total;
}

/**
 * What Neo4j's store takes per tuple with the flat index (measured with `npm run bench:service` at 100k; the store grows
 * by about this much with every tuple): the sizing plans for the data a deployment expects, not only the store found.
 */
export const STORE_BYTES_PER_TUPLE = 0.6 * 1024;
/** The data a deployment expects unless NEO4J_EXPECTED_TUPLES says otherwise. */
export const DEFAULT_EXPECTED_TUPLES = 1_000_000;

/**
 * Neo4j's heap and page cache on a machine with `totalBytes` of memory, for a store of `storeBytes` (the larger of the
 * store on disk and the one the expected tuples make). The page cache holds that store with a quarter to spare, plus
 * 64 MiB, at least 128 MiB. The heap stays small, because it holds transactions and query state, not the store:
 * index work writes at most 2,000 tuples a transaction and `db.memory.transaction.max` bounds each one (Neo4jDev.java),
 * so 512m, or 1g past a 2 GiB store. Heap plus page cache take at most half the memory.
 */
export function neo4jSizing(storeBytes: number, totalBytes: number): { heapMb: number; pagecacheMb: number } {
  const store = storeBytes / MiB;
  const total = totalBytes / MiB;
  const heapMb = Math.max(256, Math.min(store < 2048 ? 512 : 1024, Math.floor(total / 4 / 256) * 256));
  const wantCache = Math.ceil((store * 1.25) / 64) * 64 + 64;
  const pagecacheMb = Math.max(64, Math.min(Math.max(128, wantCache), Math.floor((total / 2 - heapMb) / 64) * 64));
  return { heapMb, pagecacheMb };
}

/**
 * The embedded Neo4j's java command line: its memory, the settings file NEO4J_CONF names (refused when it does not
 * exist, rather than started without it), the class path, its home and ports.
 */
export function neo4jArgs(env: NodeJS.ProcessEnv, memory: { heap: string; pagecacheMb: number }, classPath: string, home: string,
  ports: Pick<StackPorts, 'bolt' | 'http'>): string[] {
  if (env.NEO4J_CONF && !existsSync(env.NEO4J_CONF)) throw new Error(`NEO4J_CONF names ${env.NEO4J_CONF}, which does not exist`);
  const conf = env.NEO4J_CONF ? [`-Dneo4j.conf=${resolve(env.NEO4J_CONF)}`] : [];
  const extra = (env.NEO4J_JAVA_OPTS ?? '').split(/\s+/).filter(Boolean);
  return [`-Xmx${memory.heap}`, `-Dneo4j.pagecache.mb=${memory.pagecacheMb}`, `-Dneo4j.transaction.max.mb=${transactionMaxMb(memory.heap)}`, ...conf, '-XX:+UseG1GC', ...extra,
    '--add-opens=java.base/java.nio=ALL-UNNAMED', '--add-opens=java.base/java.io=ALL-UNNAMED', '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
    '-Dio.netty.tryReflectionSetAccessible=true', '-Djdk.nio.maxCachedBufferSize=1024', '-cp', classPath, 'Neo4jDev', home, String(ports.bolt), String(ports.http)];
}

/** Half the heap, for one transaction's memory (`db.memory.transaction.max`). */
export const transactionMaxMb = (heap: string) => Math.floor((Number(heap.slice(0, -1)) * (/g$/i.test(heap) ? 1024 : 1)) / 2);

/**
 * Neo4j's heap (`NEO4J_HEAP`, a java size such as 1g) and page cache (`NEO4J_PAGECACHE_MB`): each one set in `env`
 * is taken as it is; the others are sized by `neo4jSizing` for the larger of the store found under `home` and the
 * store that NEO4J_EXPECTED_TUPLES tuples make. `why` says which, and warns when the store has outgrown the expectation.
 */
export function neo4jMemory(env: NodeJS.ProcessEnv, home?: string, totalBytes = totalmem()): { heap: string; pagecacheMb: number; why: string } {
  const expected = Number(env.NEO4J_EXPECTED_TUPLES ?? DEFAULT_EXPECTED_TUPLES);
  if (!Number.isInteger(expected) || expected < 0) throw new Error(`NEO4J_EXPECTED_TUPLES must be a whole number, not ${env.NEO4J_EXPECTED_TUPLES}`);
  const storeBytes = home ? diskBytes(join(home, 'data', 'databases')) : 0;
  const expectedBytes = expected * STORE_BYTES_PER_TUPLE;
  const sized = neo4jSizing(Math.max(storeBytes, expectedBytes), totalBytes);
  const heap = env.NEO4J_HEAP ?? `${sized.heapMb}m`;
  if (!/^\d+[mg]$/i.test(heap)) throw new Error(`NEO4J_HEAP must be a size such as 512m or 2g, not ${heap}`);
  const pagecacheMb = Number(env.NEO4J_PAGECACHE_MB ?? sized.pagecacheMb);
  if (!Number.isInteger(pagecacheMb) || pagecacheMb < 8) throw new Error(`NEO4J_PAGECACHE_MB must be a whole number of MiB (at least 8), not ${env.NEO4J_PAGECACHE_MB}`);
  const mib = (b: number) => (b / MiB).toFixed(0);
  const from = `store ${mib(storeBytes)} MiB on disk, ${expected.toLocaleString('en-US')} tuples expected (NEO4J_EXPECTED_TUPLES: about `
    + `${mib(expectedBytes)} MiB), machine ${(totalBytes / 1024 / MiB).toFixed(0)} GiB`;
  const rule = 'page cache 1.25 × the larger store + 64 MiB (at least 128), heap 512m (1g past a 2 GiB store), together at most half the memory';
  const set = [env.NEO4J_HEAP ? 'NEO4J_HEAP' : '', env.NEO4J_PAGECACHE_MB ? 'NEO4J_PAGECACHE_MB' : ''].filter(Boolean);
  const outgrown = storeBytes > expectedBytes
    ? `; the store has outgrown the ${expected.toLocaleString('en-US')} tuples expected: raise NEO4J_EXPECTED_TUPLES to the data you plan for` : '';
  const why = set.length === 2 ? `${set.join(' and ')} set`
    : `${from}: ${rule}${set.length ? `; ${set[0]} set` : ''}${outgrown}; sized again at each start`;
  return { heap, pagecacheMb, why };
}

/**
 * FerretDB's storage: PostgreSQL unless FERRETDB_STORAGE=sqlite. Measured with `npm run bench`: FerretDB v1 scans a
 * collection for every filter, `_id` included, and PostgreSQL scans far faster than SQLite; at a few hundred thousand
 * tuples SQLite's lookups take seconds and the load rate collapses.
 */
export function ferretStorage(env: NodeJS.ProcessEnv): 'postgresql' | 'sqlite' {
  const v = env.FERRETDB_STORAGE ?? 'postgresql';
  if (v !== 'postgresql' && v !== 'sqlite') throw new Error(`FERRETDB_STORAGE must be postgresql or sqlite, not ${v}`);
  return v;
}

/**
 * Starts each server whose URL is not given in `env`, with data under `dataDir`.
 * A server already listening on its port is reused rather than started twice.
 */
export async function startStack(opts: { dataDir: string; ports: StackPorts; env: NodeJS.ProcessEnv; log: Log }): Promise<StartedStack> {
  const { dataDir, ports, env, log } = opts;
  const urls = {
    MONGO_URL: env.MONGO_URL ?? `mongodb://127.0.0.1:${ports.mongo}/authz`,
    NEO4J_URI: env.NEO4J_URI ?? `bolt://127.0.0.1:${ports.bolt}`,
    REDIS_URL: env.REDIS_URL ?? `redis://127.0.0.1:${ports.redis}`,
  };
  const want = {
    redis: !env.REDIS_URL && !(await portOpen(ports.redis)),
    mongo: !env.MONGO_URL && !(await portOpen(ports.mongo)),
    neo4j: !env.NEO4J_URI && !(await portOpen(ports.bolt)),
    postgres: false,
  };
  const storage = ferretStorage(env);
  want.postgres = want.mongo && storage === 'postgresql' && !(await portOpen(ports.postgres));
  prepare(want, log);
  const children: Array<[string, ChildProcess]> = [];
  const logs = join(dataDir, 'logs');
  const waits: Promise<void>[] = [];
  // Cluster set-up (initdb) and compiling Neo4j's launcher may fail: before anything is launched, so nothing is left running.
  const pgCommand = want.postgres ? postgresCommand(join(dataDir, 'postgres'), ports.postgres, log) : null;
  const neo4jClasses = want.neo4j ? neo4jClassDir(join(ROOT, 'infra', 'neo4j', 'Neo4jDev.java'), NEO4J_LIB, CACHE) : null;
  if (want.redis) {
    const dir = join(dataDir, 'redis');
    mkdirSync(dir, { recursive: true });
    const c = launch('redis', 'redis-server', ['--port', String(ports.redis), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy',
      'noeviction'], join(logs, 'redis.log'));
    children.push(['redis', c]);
    waits.push(waitForPort(ports.redis, c, 'redis', 20000));
  }
  if (pgCommand) {
    const [cmd, args] = pgCommand;
    const c = launch('postgres', cmd, args, join(logs, 'postgres.log'));
    children.push(['postgres', c]);
    // FerretDB connects on its first request, but a slow first start is clearer reported here.
    waits.push(waitForPort(ports.postgres, c, 'postgres', 60000));
  }
  if (want.mongo) {
    const backend = storage === 'postgresql'
      ? ['-postgresql-url', `postgres://postgres@127.0.0.1:${ports.postgres}/postgres`]
      : ['-dir', join(dataDir, 'ferretdb')];
    const c = launch('ferretdb', FERRET_BIN, ['-listen-addr', `127.0.0.1:${ports.mongo}`, ...backend], join(logs, 'ferretdb.log'));
    children.push(['ferretdb', c]);
    waits.push(waitForPort(ports.mongo, c, 'ferretdb', 30000));
  }
  if (neo4jClasses) {
    const memory = neo4jMemory(env, join(dataDir, 'neo4j'));
    log(`neo4j memory: heap ${memory.heap}, page cache ${memory.pagecacheMb} MiB (${memory.why})`);
    const c = launch('neo4j', 'java', neo4jArgs(env, memory, `${NEO4J_LIB}/*:${neo4jClasses}`, join(dataDir, 'neo4j'), ports), join(logs, 'neo4j.log'));
    children.push(['neo4j', c]);
    waits.push(waitForPort(ports.bolt, c, 'neo4j', 180000));
  }
  const stop = async () => {
    // PostgreSQL last, and with SIGINT (fast shutdown): SIGTERM would wait for every client to disconnect.
    await Promise.all(children.filter(([n]) => n !== 'postgres').map(([, c]) => stopChild(c)));
    await Promise.all(children.filter(([n]) => n === 'postgres').map(([, c]) => stopChild(c, 'SIGINT')));
  };
  try {
    await Promise.all(waits);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}; see the logs under ${logs}`);
  }
  const kill = async (name: string, signal: NodeJS.Signals = 'SIGKILL') => {
    const found = children.find(([n]) => n === name)?.[1];
    if (!found || found.exitCode !== null || found.signalCode !== null) return;
    await new Promise<void>((res) => {
      found.once('exit', () => res());
      found.kill(signal);
    });
  };
  const pids = Object.fromEntries(children.flatMap(([n, c]) => (c.pid ? [[n, c.pid]] : [])));
  return { urls, started: children.map(([n]) => n), stop, kill, pids, browserUrl: `http://127.0.0.1:${ports.http}/browser/` };
}
