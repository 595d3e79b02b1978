// The precomputed index in Neo4j (cypher/index.cypher): flats hung on the projection's objects, read with its tuples.
import neo4j, { type Driver, type QueryResult, type Record as Neo4jRecord } from 'neo4j-driver';
import { NAME_RE, typeOf } from '../../engine/ids.js';
import { slotOf, splitKey, type IndexPlan } from '../../engine/index-plan.js';
import type { FlatRecord, IndexStore, ListCount } from '../ports/index-store.js';
import { Batcher } from './batcher.js';
import { loadCypher, reader } from './connection.js';

const CHUNK = 500;
const chunks = <T>(list: T[]) => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

const counted = (rec: Neo4jRecord | undefined): ListCount => ({
  count: Number(rec?.get('count') ?? 0),
  below: Number(rec?.get('below') ?? 0),
  has: Boolean(rec?.get('has')),
});

/**
 * Flats in transactions of at most EDGES_PER_WRITE keys and deps together: a structural change can rewrite hundreds of
 * flats of a hundred keys each (every team under a new root owner), and one transaction of them all outgrew
 * db.memory.transaction.max (256 MiB with a 512m heap) and failed each time it was retried.
 */
const EDGES_PER_WRITE = 5000;
function byWeight(flats: FlatRecord[]): FlatRecord[][] {
  const out: FlatRecord[][] = [];
  let part: FlatRecord[] = [];
  let weight = 0;
  for (const f of flats) {
    const w = 1 + f.keys.length + f.deps.length;
    if (part.length && (weight + w > EDGES_PER_WRITE || part.length >= CHUNK)) {
      out.push(part);
      part = [];
      weight = 0;
    }
    part.push(f);
    weight += w;
  }
  if (part.length) out.push(part);
  return out;
}

/**
 * Past this many tuples into an object, a check finds the object's arrow tuples from the subject's side: reading an
 * object's 10,000 reader tuples to find its one owner made a check's p99 30 ms (npm run bench:adversarial).
 */
export const DENSE_OBJECT = 500;

/** Labels of the index nodes of the format before this one (rows, actors and keys copied every tuple). */
const OLD_LABELS = ['IndexRow', 'IndexFlat', 'IndexDep', 'Actor', 'IndexKey'];
const LIST_TAIL = 'WITH DISTINCT id ORDER BY id SKIP $skip LIMIT $limit RETURN id';
const COUNT_TAIL = 'WITH DISTINCT id RETURN count(id) AS count, count(CASE WHEN id < $pivot THEN 1 END) AS below, '
  + 'count(CASE WHEN id = $pivot THEN 1 END) > 0 AS has';

/** The spliced statements known before any model (a subject list and its count), for warmNeo4j to plan at start. */
export function splicedStatements(): string[] {
  const subjectsOf = loadCypher('index.cypher').get('subjects-of')!;
  return [LIST_TAIL, COUNT_TAIL].map((tail) => subjectsOf.replace('__TAIL__', tail));
}

/** A plan as the statements' parameters: maps by arrow relation, since Cypher reads them with `map[t.relation]`. */
export const planParams = (p: IndexPlan) => ({
  public: p.public,
  direct: p.direct,
  grants: p.grants,
  slots: p.slots,
  arrowRels: p.arrows.map((a) => a.rel),
  targets: Object.fromEntries(p.arrows.map((a) => [a.rel, a.targets])),
  types: Object.fromEntries(p.arrows.map((a) => [a.rel, a.types])),
});

/** The statements of index.cypher, run as writes (generations as integers) or as reads. */
interface Cypher {
  driver: Driver;
  stmt(name: string): string;
  write(name: string, params: Record<string, unknown>): Promise<QueryResult>;
  read(name: string, params: Record<string, unknown>): Promise<QueryResult>;
  /** Reads a statement spliced from index.cypher's (a label, a tail). */
  text(query: string, params: Record<string, unknown>): Promise<QueryResult>;
}

/** `denseObject`: DENSE_OBJECT unless told (a test sets -1 to ask every check from the subject's side). */
export function neo4jIndexStore(driver: Driver, opts: { denseObject?: number } = {}): IndexStore {
  const q = loadCypher('index.cypher');
  const stmt = (name: string) => q.get(name)!;
  const run = reader(driver);
  const cx: Cypher = {
    driver,
    stmt,
    // Generations are integers in Neo4j; a JS number would arrive as a float and print as "1.0" in ids.
    write: (name, params) => driver.executeQuery(stmt(name), { ...params, ...(typeof params.gen === 'number' ? { gen: neo4j.int(params.gen) } : {}) }),
    read: (name, params) => run(stmt(name), params),
    text: (query, params) => run(query, params),
  };
  return { ...generationCalls(cx), ...writeCalls(cx), ...pointReads(cx, opts.denseObject ?? DENSE_OBJECT), ...listReads(cx) };
}

/** Deletes a generation's flats (or every node of an older format's label), edges first in bounded batches. */
async function dropNodes(driver: Driver, statements: [edges: string, nodes: string], gen: number | null): Promise<number> {
  let total = 0;
  for (const [i, statement] of statements.entries()) {
    for (;;) {
      const n = Number((await driver.executeQuery(statement, { gen: gen === null ? null : neo4j.int(gen) })).records[0]?.get('deleted') ?? 0);
      if (i === 1) total += n; // nodes; the edges' count is not what the caller asks
      if (n === 0) break;
    }
  }
  return total;
}

/** The IndexMeta node: which generation is live, which is being built, and the index's format. */
function generationCalls({ driver, stmt, write, read }: Cypher): Pick<IndexStore, 'meta' | 'migrate' | 'setBuilding' | 'switchGeneration' | 'dropGeneration'> {
  const gens = (rec: Neo4jRecord) => ({ gen: rec.get('gen') as number, building: (rec.get('building') as number | null) ?? null });
  return {
    async meta() {
      const found = (await read('meta-read', {})).records[0];
      return gens(found ?? (await write('meta', {})).records[0]!);
    },
    async migrate() {
      const found = (await read('meta-read', {})).records[0];
      if (!found || found.get('format') === 2) return false;
      // The format stays old until a hard rebuild switches to its new generation (switch-generation sets it): a crash
      // before the rebuild is requested leaves it old, and the next start requests it again.
      for (const label of OLD_LABELS) {
        await dropNodes(driver, [stmt('drop-old-edges').replace('__LABEL__', label), stmt('drop-old-nodes').replace('__LABEL__', label)], null);
      }
      return true;
    },
    async setBuilding(gen) {
      await write('set-building', { building: gen === null ? null : neo4j.int(gen) });
    },
    async switchGeneration(gen) {
      await write('switch-generation', { gen });
    },
    dropGeneration: (gen) => dropNodes(driver, [stmt('drop-generation-edges'), stmt('drop-generation')], gen),
  };
}

/** Writes to one generation in chunks, and the questions the indexer asks of it while writing. */
function writeCalls({ write, read }: Cypher): Pick<IndexStore, 'putFlats' | 'objectsUnder' | 'flatsDependingOn' | 'flattened'> {
  const each = async (name: string, gen: number, objects: string[]) => {
    const out = new Set<string>();
    for (const part of chunks(objects)) {
      for (const rec of (await read(name, { gen: neo4j.int(gen), objects: part })).records) out.add(rec.get('obj') as string);
    }
    return out;
  };
  return {
    async putFlats(gen, flats) {
      const changed: string[] = [];
      for (const part of byWeight(flats)) {
        const rows = part.map((f) => ({
          id: f.id,
          obj: f.obj,
          perm: f.perm,
          public: f.public,
          hash: f.hash,
          deps: f.deps,
          gives: f.keys.map((k) => {
            const { obj, rel } = splitKey(k);
            return { obj, rel, slot: slotOf(typeOf(obj), rel) };
          }),
        }));
        changed.push(...((await write('put-flats', { gen, flats: rows })).records[0]?.get('changed') as string[] ?? []));
      }
      const perms = new Map<string, string[]>();
      for (const f of flats) perms.set(f.obj, [...perms.get(f.obj) ?? [], f.perm]);
      for (const part of chunks([...perms].map(([obj, list]) => ({ obj, perms: list })))) await write('drop-other-flats', { gen, owners: part });
      return changed;
    },
    async objectsUnder(gen, flatIds, limit) {
      const out = new Set<string>();
      for (const part of chunks(flatIds)) {
        const left = limit - out.size;
        if (left <= 0) break;
        for (const rec of (await read('objects-under', { gen: neo4j.int(gen), flats: part, limit: neo4j.int(left) })).records) out.add(rec.get('obj') as string);
      }
      return [...out];
    },
    flatsDependingOn: async (gen, objects) => [...await each('flats-depending-on', gen, objects)],
    flattened: (gen, objects) => each('flattened', gen, objects),
  };
}

/** Checks and holds, batched: concurrent calls share one round trip. */
function pointReads({ read }: Cypher, dense: number): Pick<IndexStore, 'check' | 'records' | 'holds'> {
  const checks = new Batcher<Record<string, unknown>, boolean>(
    async (one) => [Boolean((await read('check-many', { checks: one, dense })).records[0]?.get('allowed'))],
    async (many) => {
      const out = many.map(() => false);
      for (const rec of (await read('check-many', { checks: many, dense })).records) out[Number(rec.get('i'))] = Boolean(rec.get('allowed'));
      return out;
    },
  );
  const holdChecks = new Batcher<{ subject: string; object: string; relation: string }, boolean>(
    async ([one]) => [Boolean((await read('holds', one!)).records[0]?.get('held'))],
    async (many) => {
      const out = many.map(() => false);
      for (const rec of (await read('holds-many', { checks: many })).records) out[Number(rec.get('i'))] = Boolean(rec.get('held'));
      return out;
    },
  );
  return {
    holds: (subject, object, relation) => holdChecks.ask({ subject, object, relation }),
    check: (subject, object, plan) => checks.ask({ subject, object, ...planParams(plan) }),
    async records(subject, object, plan) {
      const rec = (await read('records', { subject, object, ...planParams(plan) })).records[0];
      if (!rec) return { gen: 0, arrows: [], held: null };
      return { gen: rec.get('gen') as number, arrows: rec.get('arrows'), held: rec.get('held') };
    },
  };
}

/** The lists and their counts, paged by the statements, from the live generation. */
function listReads(
  { read, stmt, text: readText }: Cypher,
): Pick<IndexStore, 'listObjects' | 'countObjects' | 'listNamed' | 'countNamed' | 'listSubjects' | 'countSubjects' | 'listHeld' | 'countHeld' | 'listHolders' | 'countHolders'> {
  const ints = (skip: number, limit: number) => ({ skip: neo4j.int(skip), limit: neo4j.int(limit) });
  const ids = (r: QueryResult, field: string) => r.records.map((rec) => rec.get(field) as string);
  const tailed = (name: string, tail: string) => stmt(name).replace('__TAIL__', tail);
  const named = (type: string, tail: string) => {
    if (!NAME_RE.test(type)) throw new Error(`refusing label ${JSON.stringify(type)}`);
    return tailed('named-of-type', tail).replace('__TYPE_LABEL__', `\`${type}\``);
  };
  return {
    async listObjects(subject, type, plan, skip, limit) {
      return ids(await read('list-objects', { subject, type, ...planParams(plan), ...ints(skip, limit) }), 'obj');
    },
    async countObjects(subject, type, plan, pivot) {
      return counted((await read('count-objects', { subject, type, ...planParams(plan), pivot })).records[0]);
    },
    async listNamed(type, validity, skip, limit) {
      return ids(await readText(named(type, LIST_TAIL), { ...validity, ...ints(skip, limit) }), 'id');
    },
    async countNamed(type, validity, pivot) {
      return counted((await readText(named(type, COUNT_TAIL), { ...validity, pivot })).records[0]);
    },
    async listSubjects(object, subjectType, plan, skip, limit) {
      return ids(await readText(tailed('subjects-of', LIST_TAIL), { object, subjectType, ...planParams(plan), ...ints(skip, limit) }), 'id');
    },
    async countSubjects(object, subjectType, plan, pivot) {
      const params = { object, subjectType, ...planParams(plan) };
      const count = counted((await readText(tailed('subjects-of', COUNT_TAIL), { ...params, pivot })).records[0]);
      const flatPublic = Boolean((await read('flat-public', params)).records[0]?.get('public'));
      return { ...count, public: plan.public || flatPublic };
    },
    async listHeld(subject, type, relation, skip, limit) {
      return ids(await read('list-held', { subject, type, relation, ...ints(skip, limit) }), 'obj');
    },
    async countHeld(subject, type, relation, pivot) {
      return counted((await read('count-held', { subject, type, relation, pivot })).records[0]);
    },
    async listHolders(object, relation, subjectType, skip, limit) {
      return ids(await read('list-holders', { object, relation, subjectType, ...ints(skip, limit) }), 'subject');
    },
    async countHolders(object, relation, subjectType, pivot) {
      return counted((await read('count-holders', { object, relation, subjectType, pivot })).records[0]);
    },
  };
}
