// CPU seconds spent by a server process and everything it forked (PostgreSQL runs a process per connection), from /proc.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

interface Stat {
  ppid: number;
  ticks: number;
}

function stats(): Map<number, Stat> {
  const out = new Map<number, Stat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const raw = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the parenthesised command name: state ppid … utime(14) stime(15) cutime(16) cstime(17).
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      out.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
    } catch { /* the process exited meanwhile */ }
  }
  return out;
}

/** CPU seconds of each named process tree so far; compare two readings to get a phase's share. */
export function cpuSeconds(roots: Record<string, number>): Record<string, number> {
  const all = stats();
  const children = new Map<number, number[]>();
  for (const [pid, s] of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  // A root's tree stops at the other roots: the servers are children of the Node process that started them.
  const others = new Set(Object.values(roots));
  const tree = (pid: number): number =>
    (all.get(pid)?.ticks ?? 0)
    + (children.get(pid) ?? []).filter((c) => !others.has(c)).reduce((a, c) => a + tree(c), 0);
  return Object.fromEntries(Object.entries(roots).map(([name, pid]) => [name, tree(pid) / TICKS]));
}

/** "neo4j 41% · postgres 22% · …" of the CPU used between two readings, plus how busy both cores were. */
export function cpuShares(before: Record<string, number>, after: Record<string, number>, seconds: number, cores: number): string {
  const used = Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)] as const).sort((a, b) => b[1] - a[1]);
  const total = used.reduce((a, [, v]) => a + v, 0);
  const parts = used.map(([k, v]) => `${k} ${v.toFixed(0)} s (${((100 * v) / total).toFixed(0)}%)`);
  return `${parts.join(' · ')}; machine ${((100 * total) / (seconds * cores)).toFixed(0)}% busy`;
}
