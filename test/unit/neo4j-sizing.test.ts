// Neo4j's memory as `npm start` sizes it (infra/stack.ts): a small heap, a page cache for the data a deployment expects.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { neo4jArgs, neo4jMemory, neo4jSizing, STORE_BYTES_PER_TUPLE, transactionMaxMb } from '../../infra/stack.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

it('keeps the heap small and gives the page cache the store with a quarter to spare, within half the memory', () => {
  expect(neo4jSizing(0, 24 * GiB)).toEqual({ heapMb: 512, pagecacheMb: 128 });
  expect(neo4jSizing(600 * MiB, 24 * GiB)).toEqual({ heapMb: 512, pagecacheMb: 832 });
  expect(neo4jSizing(3 * GiB, 24 * GiB).heapMb).toBe(1024);
  // A small machine: at most a quarter for the heap, half for both.
  expect(neo4jSizing(3 * GiB, 2 * GiB)).toEqual({ heapMb: 512, pagecacheMb: 512 });
  expect(transactionMaxMb('512m')).toBe(256);
  expect(transactionMaxMb('1g')).toBe(512);
});

describe('neo4jMemory', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'neo4j-sizing-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));
  const store = (bytes: number) => {
    mkdirSync(join(home, 'data', 'databases', 'neo4j'), { recursive: true });
    writeFileSync(join(home, 'data', 'databases', 'neo4j', 'store'), Buffer.alloc(bytes));
  };

  it('sizes an empty store for the tuples expected, a million unless NEO4J_EXPECTED_TUPLES says otherwise', () => {
    const million = neo4jMemory({}, home, 24 * GiB);
    expect(million.pagecacheMb).toBe(neo4jSizing(1_000_000 * STORE_BYTES_PER_TUPLE, 24 * GiB).pagecacheMb);
    expect(million.pagecacheMb).toBeGreaterThan(128);
    expect(million.why).toContain('1,000,000 tuples expected');
    expect(neo4jMemory({ NEO4J_EXPECTED_TUPLES: '50000' }, home, 24 * GiB).pagecacheMb).toBe(128);
    expect(() => neo4jMemory({ NEO4J_EXPECTED_TUPLES: 'lots' }, home, 24 * GiB)).toThrow(/NEO4J_EXPECTED_TUPLES/);
  });

  it('says when the store has outgrown what was expected, and sizes for the store found', () => {
    store(4 * MiB);
    const small = neo4jMemory({ NEO4J_EXPECTED_TUPLES: '10' }, home, 24 * GiB);
    expect(small.why).toMatch(/outgrown the 10 tuples expected/);
    expect(neo4jMemory({ NEO4J_EXPECTED_TUPLES: '100000' }, home, 24 * GiB).why).not.toMatch(/outgrown/);
  });

  it('takes NEO4J_HEAP and NEO4J_PAGECACHE_MB as they are', () => {
    expect(neo4jMemory({ NEO4J_HEAP: '2g', NEO4J_PAGECACHE_MB: '300' }, home, 24 * GiB)).toEqual({ heap: '2g', pagecacheMb: 300, why: 'NEO4J_HEAP and NEO4J_PAGECACHE_MB set' });
  });
});

describe('neo4jArgs', () => {
  const memory = { heap: '512m', pagecacheMb: 128 };
  const ports = { bolt: 7687, http: 7474 };
  it('hands the file NEO4J_CONF names to the launcher by its absolute path, and nothing when it is unset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'neo4j-conf-'));
    try {
      writeFileSync(join(dir, 'neo4j.conf'), 'dbms.cypher.min_replan_interval=1h\n');
      const args = neo4jArgs({ NEO4J_CONF: join(dir, 'neo4j.conf') }, memory, 'lib/*', '/home', ports);
      expect(args.filter((a) => a.startsWith('-Dneo4j.conf='))).toEqual([`-Dneo4j.conf=${join(dir, 'neo4j.conf')}`]);
      expect(args.slice(-4)).toEqual(['Neo4jDev', '/home', '7687', '7474']);
      expect(neo4jArgs({}, memory, 'lib/*', '/home', ports).some((a) => a.startsWith('-Dneo4j.conf'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('refuses a NEO4J_CONF that does not exist instead of starting without its settings', () => {
    expect(() => neo4jArgs({ NEO4J_CONF: '/no/such/neo4j.conf' }, memory, 'lib/*', '/home', ports)).toThrow('NEO4J_CONF names /no/such/neo4j.conf, which does not exist');
  });
});
