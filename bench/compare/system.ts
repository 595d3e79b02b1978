// What the comparison needs from each system under test, and helpers they share (JSON calls, memory of process trees).
import { readdirSync, readFileSync } from 'node:fs';
import { portOpen } from '../../infra/stack.js';
import type { Tuple } from './dataset.js';
import type { AnswerKind, Job } from './loadgen.js';

export type Request = Job['requests'][number];

export interface System {
  /** The row label, e.g. "OpenFGA (PostgreSQL + caches)". */
  label: string;
  version: string;
  start(): Promise<void>;
  /** Writes tuples as a bulk client would; returns once every one is acknowledged. */
  load(tuples: Tuple[], progress: (done: number) => void): Promise<void>;
  /** Resolves once everything acknowledged is visible to checks (for systems that index behind the write). */
  settled(): Promise<void>;
  /** Called once loaded, before the read phases (ours restarts its service under the CPU profiler with --profile). */
  beforeReads?(): Promise<void>;
  /** How the load generator reaches it (`bases`: every process, round robin) and reads its answers. */
  target(): { base: string; bases?: string[]; headers: Record<string, string>; check: AnswerKind; list: AnswerKind };
  /** How it was configured and on whose advice, for the result file. */
  notes?(): string[];
  check(subject: string, permission: string, resource: string): Omit<Request, 'expect'>;
  list(subject: string, permission: string, type: string): Omit<Request, 'expect'>;
  /** One write, as an application would make it, for write-to-visible. */
  write(t: Tuple): Promise<void>;
  /** Decisions answered from a cache, and all decisions, so far (where the system reports it). */
  cacheCounts?(): Promise<{ hits: number; total: number }>;
  /** Root process ids of everything it runs (servers and their children count towards memory). */
  pids(): Record<string, number>;
  stop(): Promise<void>;
}

/**
 * Where one bench run puts its servers: every port is `base` plus a fixed offset (ours +1…+17, OpenFGA +20…+22,
 * SpiceDB +30…+34), so runs with other bases, and the shared dev stack, never meet.
 */
export interface Place {
  base: number;
  dir: string;
}

/** Refuses to start when something already listens on one of `ports` (the stack would reuse it, and measure it). */
export async function assertFree(ports: number[]): Promise<void> {
  const taken: number[] = [];
  for (const p of ports) if (await portOpen(p)) taken.push(p);
  if (taken.length) throw new Error(`ports ${taken.join(', ')} are in use; stop what listens there or pass another --port-base`);
}

/** A JSON call that fails loudly with the body of a non-2xx answer. */
export async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${init.method ?? 'POST'} ${url}: HTTP ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : {};
}

/** Runs `fn` over `items` with `concurrency` workers. */
export async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/**
 * Memory in MiB of each named process and everything below it (PostgreSQL forks a process per client): the
 * proportional set size, so pages shared between processes (PostgreSQL's shared buffers) count once, not per process.
 */
export function rssMiB(roots: Record<string, number>): Record<string, number> {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      parent.set(Number(name), Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0));
    } catch { /* exited meanwhile */ }
  }
  const rootOf = (pid: number): string | undefined => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) {
      const hit = Object.entries(roots).find(([, r]) => r === p);
      if (hit) return hit[0];
    }
    return undefined;
  };
  const out: Record<string, number> = Object.fromEntries(Object.keys(roots).map((k) => [k, 0]));
  for (const pid of parent.keys()) {
    const root = rootOf(pid);
    if (!root) continue;
    try {
      const kb = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      out[root]! += kb / 1024;
    } catch { /* exited meanwhile */ }
  }
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
