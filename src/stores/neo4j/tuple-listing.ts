// The admin list of relations from the TUPLE edges of the projection: indexed pages and counts (cypher/listing.cypher).
import neo4j, { type Driver } from 'neo4j-driver';
import { NAME_RE } from '../../engine/ids.js';
import { LIST_LIMITS, type TupleListing, type TupleListPage, type TupleListQuery } from '../ports/tuple-listing.js';
import { loadCypher, reader } from './connection.js';

/**
 * How long an edge the catch-up put in the text index stays among the pending ones a search also reads: a commit shows
 * a search the pending index's change before the text index's (cypher/listing.cypher, search-probe).
 */
export const SEARCH_SETTLE_MS = 500;

export function neo4jTupleListing(driver: Driver, limits = LIST_LIMITS, settleMs = SEARCH_SETTLE_MS): TupleListing {
  const q = loadCypher('listing.cypher');
  const run = reader(driver);
  const stmt = (name: string, splice: { dir?: 'ASC' | 'DESC'; type?: string } = {}) => {
    let s = q.get(name)!;
    if (splice.dir) s = s.replaceAll('__DIR__', splice.dir);
    if (splice.type !== undefined) {
      if (!NAME_RE.test(splice.type)) throw new Error(`refusing label ${JSON.stringify(splice.type)}`);
      s = s.replaceAll('__TYPE_LABEL__', `\`${splice.type}\``);
    }
    return s;
  };
  const one = async (statement: string, params: Record<string, unknown>) => (await run(statement, params)).records[0]!;
  const int = (n: number) => neo4j.int(n);

  /**
   * How many tuples match the type filters. Neo4j's count store answers one type filter or none in one lookup
   * (objects carry their type as a label; `Object` is every object's label, so that type is counted like two filters);
   * both filters together are counted on the (resourceType, key) index, up to the cap.
   */
  async function count(query: TupleListQuery, prefix: string): Promise<{ count: number; exact: boolean }> {
    const { subjectType: st, resourceType: rt } = query;
    let statement: string | undefined;
    if (st === undefined && rt === undefined) statement = stmt('count-all');
    else if (rt === undefined && st !== 'Object') statement = stmt('count-from-type', { type: st });
    else if (st === undefined && rt !== 'Object') statement = stmt('count-to-type', { type: rt });
    if (statement) return { count: Number((await one(statement, {})).get('n')), exact: true };
    const n = Number((await one(stmt(rt === undefined ? 'count-keyed' : 'count-typed'), { prefix, resourceType: rt ?? null, cap: int(limits.cap) })).get('n'));
    return { count: n, exact: n < limits.cap };
  }

  async function search(query: TupleListQuery, prefix: string, dir: 'ASC' | 'DESC'): Promise<TupleListPage> {
    const range = query.resourceType === undefined ? 'keyed' : 'typed';
    const params = { search: query.search!, prefix, resourceType: query.resourceType ?? null, skip: int(query.skip), limit: int(query.limit) };
    // Most searches name an object or a tuple: the text index gives every match, read whole, sorted and counted. The
    // edges not in it yet are read first, in a statement of their own (cypher/listing.cypher, search-probe, says why).
    const cap = int(limits.cap);
    const pending = (await run(stmt('search-pending'), { search: params.search, cap })).records
      .map((r) => ({ key: r.get('key') as string, resourceType: r.get('resourceType') as string | null }));
    // As many pending matches as the cap: the probe could only say "at least the cap", so the key order answers.
    const probe = pending.length < limits.cap ? await one(stmt('search-probe', { dir }), { ...params, cap, pending }) : null;
    const matched = probe ? Number(probe.get('matched')) : limits.cap;
    if (probe && Number(probe.get('seen')) < limits.cap) return { keys: probe.get('page') as string[], count: matched, exact: true };
    // A broad one: key order, filtered, within the budget; a full page ends it, else the tally tells whether the range ended.
    const keys = (await run(stmt(`search-${range}`, { dir }), { ...params, budget: int(limits.budget) })).records
      .map((r) => r.get('key') as string);
    if (keys.length === query.limit) return { keys, count: Math.max(matched, query.skip + keys.length), exact: false };
    const tally = await one(stmt(`tally-${range}`, { dir }), { ...params, budget: int(limits.budget + 1) });
    if (Number(tally.get('scanned')) > limits.budget) return { tooBroad: true };
    return { keys, count: Number(tally.get('matched')), exact: true };
  }

  /** Settles the marks of edges indexed at least settleMs ago, then indexes more; written in a write transaction each. */
  async function catchUp(limit: number): Promise<number> {
    await driver.executeQuery(stmt('settle'), { limit: int(limit), settleMs: int(settleMs) });
    const r = await driver.executeQuery(stmt('catch-up'), { limit: int(limit) });
    return Number(r.records[0]?.get('n') ?? 0);
  }

  return {
    limits,
    catchUp,
    async idle() {
      return (await one(stmt('idle'), {})).get('idle') as boolean;
    },
    async list(query) {
      const prefix = query.subjectType === undefined ? '' : `${query.subjectType}:`;
      const dir = query.descending ? 'DESC' : 'ASC';
      if (query.search) return search(query, prefix, dir);
      const counted = await count(query, prefix);
      if (counted.exact && query.skip >= counted.count) return { keys: [], ...counted };
      const page = query.resourceType === undefined ? 'page-keyed' : 'page-typed';
      const r = await run(stmt(page, { dir }), { prefix, resourceType: query.resourceType ?? null, skip: int(query.skip), limit: int(query.limit) });
      return { keys: r.records.map((rec) => rec.get('key') as string), ...counted };
    },
    async prepare(starting) {
      if ((await one(stmt('filled'), {})).get('filled')) return 0;
      starting?.();
      // CALL … IN TRANSACTIONS needs an auto-commit transaction: a session's run, not executeQuery.
      const session = driver.session();
      try {
        const filled = Number((await session.run(stmt('fill'))).records[0]?.get('n') ?? 0);
        await session.run(stmt('mark-filled'));
        return filled;
      } finally {
        await session.close();
      }
    },
  };
}
