// Counts and times every statement a driver runs, by name: which statements each variant of the index ran during its load.
import type { Driver } from 'neo4j-driver';

export interface StatementTally {
  calls: number;
  ms: number;
  cpuS: number;
}

/**
 * Wraps `driver.executeQuery` and `session().run` (the adapters use both: writes and reads). A statement is named by
 * the longest known text it starts with, up to its first spliced placeholder (`__LABEL__`), so spliced statements
 * keep their names. `named`: name -> statement text. `cpu` (CPU seconds of the Neo4j process so far) read before and
 * after each statement gives its Neo4j CPU: the loads run one statement at a time, so background work (checkpoints,
 * garbage collection) is counted against the statement it runs beside.
 */
export function tallyStatements(driver: Driver, named: Map<string, string>, cpu: () => number) {
  const prefixes = [...named].map(([name, text]) => [name, text.split('__')[0]!.slice(0, 160)] as const)
    .sort((a, b) => b[1].length - a[1].length);
  const totals = new Map<string, StatementTally>();
  let on = true;
  const nameOf = (query: string) => prefixes.find(([, p]) => query.startsWith(p))?.[0] ?? query.replace(/\s+/g, ' ').slice(0, 40);
  const add = (query: string, started: number, cpu0: number) => {
    if (!on) return;
    const name = nameOf(query);
    const t = totals.get(name) ?? { calls: 0, ms: 0, cpuS: 0 };
    t.calls++;
    t.ms += performance.now() - started;
    t.cpuS += cpu() - cpu0;
    totals.set(name, t);
  };
  const executeQuery = driver.executeQuery.bind(driver);
  (driver as { executeQuery: unknown }).executeQuery = async (query: string, ...rest: unknown[]) => {
    const [started, cpu0] = [performance.now(), cpu()];
    try {
      return await (executeQuery as (q: string, ...r: unknown[]) => Promise<unknown>)(query, ...rest);
    } finally {
      add(query, started, cpu0);
    }
  };
  const session = driver.session.bind(driver);
  (driver as { session: unknown }).session = (...args: Parameters<Driver['session']>) => {
    const s = session(...args);
    const run = s.run.bind(s);
    (s as { run: unknown }).run = (query: string, ...rest: unknown[]) => {
      const [started, cpu0] = [performance.now(), cpu()];
      const result = (run as (q: string, ...r: unknown[]) => Promise<unknown>)(query, ...rest);
      void Promise.resolve(result).finally(() => add(query, started, cpu0)).catch(() => undefined);
      return result;
    };
    return s;
  };
  return {
    /** Stops counting (the reads after the load are not part of it). */
    stop() {
      on = false;
    },
    /** "put-edges 50× 12.3 s (Neo4j CPU 9.1 s); …", most Neo4j CPU first. */
    summary: () =>
      [...totals].sort((a, b) => b[1].cpuS - a[1].cpuS)
        .map(([name, t]) => `${name} ${t.calls}× ${(t.ms / 1000).toFixed(1)} s (Neo4j CPU ${t.cpuS.toFixed(1)} s)`).join('; '),
  };
}
