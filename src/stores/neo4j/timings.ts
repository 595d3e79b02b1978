// Time spent per named statement (AUTHZ_QUERY_TIMINGS=1): where index work goes, printed by the bench; off by default.
import type { Driver } from 'neo4j-driver';
import { loadCypher } from './connection.js';

const totals = new Map<string, { calls: number; ms: number }>();

function nameOf(query: string, names: Map<string, string>): string {
  const first = query.slice(0, 160);
  return names.get(first) ?? first.replace(/\s+/g, ' ').slice(0, 60);
}

/** Wraps the driver's query entry points so each statement's wall time is summed under its name. */
export function timeStatements(driver: Driver): Driver {
  const names = new Map<string, string>();
  for (const file of ['projection.cypher', 'index.cypher']) {
    for (const [name, text] of loadCypher(file)) names.set(text.slice(0, 160), name);
  }
  const add = (query: string, started: number) => {
    const name = nameOf(query, names);
    const t = totals.get(name) ?? { calls: 0, ms: 0 };
    t.calls++;
    t.ms += performance.now() - started;
    totals.set(name, t);
  };
  const executeQuery = driver.executeQuery.bind(driver);
  (driver as { executeQuery: unknown }).executeQuery = async (query: string, ...rest: unknown[]) => {
    const started = performance.now();
    try {
      return await (executeQuery as (q: string, ...r: unknown[]) => Promise<unknown>)(query, ...rest);
    } finally {
      add(query, started);
    }
  };
  const session = driver.session.bind(driver);
  (driver as { session: unknown }).session = (...args: Parameters<Driver['session']>) => {
    const s = session(...args);
    const run = s.run.bind(s);
    (s as { run: unknown }).run = (query: string, ...rest: unknown[]) => {
      const started = performance.now();
      const result = (run as (q: string, ...r: unknown[]) => Promise<unknown>)(query, ...rest);
      void Promise.resolve(result).finally(() => add(query, started)).catch(() => undefined);
      return result;
    };
    return s;
  };
  return driver;
}

/** The totals so far, slowest first, as lines. */
export function statementTimings(): string[] {
  return [...totals].sort((a, b) => b[1].ms - a[1].ms)
    .map(([name, t]) => `${name.padEnd(28)} ${String(t.calls).padStart(7)} calls ${(t.ms / 1000).toFixed(1).padStart(8)} s  ${(t.ms / t.calls).toFixed(2)} ms each`);
}
