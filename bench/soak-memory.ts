// Memory of the soak's processes from /proc (RSS, PostgreSQL's backends summed) and Redis's own used_memory.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Redis } from 'ioredis';

const MIB = 2 ** 20;

/** A `/proc/<pid>/<file>` field in kB, as MiB; 0 when the process is gone. */
function field(pid: number, file: string, name: string): number {
  try {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return m ? (Number(m[1]) * 1024) / MIB : 0;
  } catch {
    return 0;
  }
}

/** Every live descendant of `root` (PostgreSQL forks one backend per connection, plus its helpers). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const raw = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(raw.slice(raw.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch { /* exited meanwhile */ }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

export interface Sample {
  /** Seconds since the soak phase began (negative during the ramp). */
  t: number;
  /** MiB per process: RSS; `postgres` sums the postmaster and every backend. */
  rss: Record<string, number>;
  /**
   * PostgreSQL's proportional set size summed (MiB): each backend's RSS counts the pages of shared_buffers it has touched,
   * so the RSS sum grows as backends touch more of the same shared memory; PSS counts each shared page once.
   */
  postgresPss: number;
  /** Redis INFO used_memory, MiB. */
  redisUsed: number;
  /** The service's V8 heap and off-heap (Buffers) memory, MiB: the service runs in this process. */
  heapUsed: number;
  external: number;
  /** Requests per second and errors over the interval before this sample (from the load generator). */
  rate?: number;
  errors?: number;
  /** The machine's 1-minute load average: other agents share these 2 cores. */
  load?: number;
}

export async function sample(t: number, pids: Record<string, number>, redis: Redis): Promise<Sample> {
  const rss: Record<string, number> = {};
  let postgresPss = 0;
  for (const [name, pid] of Object.entries(pids)) {
    if (name === 'postgres') {
      const all = [pid, ...descendants(pid)];
      rss[name] = all.reduce((a, p) => a + field(p, 'status', 'VmRSS'), 0);
      postgresPss = all.reduce((a, p) => a + field(p, 'smaps_rollup', 'Pss'), 0);
    } else {
      rss[name] = field(pid, 'status', 'VmRSS');
    }
  }
  const info = await redis.info('memory');
  const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0) / MIB;
  const m = process.memoryUsage();
  return { t, rss, postgresPss, redisUsed: used, heapUsed: m.heapUsed / MIB, external: m.external / MIB };
}

/** Redis keys counted by kind (`authz:dc:…` → `dc`): what Redis's used_memory is made of, at the warm-up's end and at the end. */
export async function redisKeys(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      const kind = k.split(':').slice(1, 2)[0] ?? k;
      out[kind] = (out[kind] ?? 0) + 1;
    }
  } while (cursor !== '0');
  return out;
}

/** The JVM's heap (MiB, committed and used) from `jcmd GC.heap_info`: whether Neo4j's RSS follows its heap sizing. */
export function jvmHeap(pid: number): { committed: number; used: number; metaspace: number } | undefined {
  try {
    const out = execFileSync('jcmd', [String(pid), 'GC.heap_info'], { encoding: 'utf8', timeout: 20_000 });
    const heap = /heap\s+total (\d+)K, used (\d+)K/.exec(out);
    const meta = /Metaspace\s+used (\d+)K/.exec(out);
    if (!heap) return undefined;
    return { committed: Number(heap[1]) / 1024, used: Number(heap[2]) / 1024, metaspace: Number(meta?.[1] ?? 0) / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * The service's live heap (MiB) after a full collection: heapUsed between collections saws up and down by tens of MiB,
 * so only this tells a leak. Taken twice (warm-up end, end); each stalls the service for a moment.
 */
export function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  return process.memoryUsage().heapUsed / MIB;
}
