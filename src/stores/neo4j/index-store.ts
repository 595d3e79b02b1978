// The precomputed index in Neo4j: rows, flats, actors and keys, each id prefixed with its generation.
import neo4j, { type Driver, type EagerResult, type QueryResult, type Record as Neo4jRecord } from 'neo4j-driver';
import type { IndexStore } from '../ports/index-store.js';
import { Batcher } from './batcher.js';
import { loadCypher, reader } from './connection.js';

interface Decision { rowExists: boolean; allowed: boolean }

const CHUNK = 500;
const chunks = <T>(list: T[]) => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

const counted = (rec: Neo4jRecord | undefined) => ({
  count: Number(rec?.get('count') ?? 0), below: Number(rec?.get('below') ?? 0), has: Boolean(rec?.get('has')),
});

/** The statements of index.cypher, run as writes (generations as integers) or as reads. */
interface Cypher {
  driver: Driver;
  stmt(name: string): string;
  write(name: string, params: Record<string, unknown>): Promise<EagerResult>;
  read(name: string, params: Record<string, unknown>): Promise<QueryResult>;
}

export function neo4jIndexStore(driver: Driver): IndexStore {
  const q = loadCypher('index.cypher');
  const stmt = (name: string) => q.get(name)!;
  // Generations are integers in Neo4j; a JS number would arrive as a float and print as "1.0" in ids.
  const asInt = (params: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(params).map(([k, v]) => [k, (k === 'gen' || k === 'building') && typeof v === 'number' ? neo4j.int(v) : v]));
  const run = reader(driver);
  const cx: Cypher = {
    driver, stmt,
    write: (name, params) => driver.executeQuery(stmt(name), asInt(params)),
    read: (name, params) => run(stmt(name), params),
  };
  return { ...generationCalls(cx), ...writeCalls(cx), ...pointReads(cx), ...listReads(cx) };
}

/** The IndexMeta node: which generation is live and which is being built. */
function generationCalls({ driver, stmt, write, read }: Cypher): Pick<IndexStore, 'meta' | 'setBuilding' | 'switchGeneration' | 'dropGeneration'> {
  return {
    async meta() {
      const found = (await read('meta-read', {})).records[0];
      if (found) return { gen: found.get('gen') as number, building: (found.get('building') as number | null) ?? null };
      const r = await write('meta', {});
      return { gen: r.records[0]!.get('gen') as number, building: (r.records[0]!.get('building') as number | null) ?? null };
    },
    async setBuilding(gen) { await write('set-building', { building: gen }); },
    async switchGeneration(gen) { await write('switch-generation', { gen }); },
    async dropGeneration(gen) {
      let total = 0;
      for (const label of ['IndexRow', 'IndexFlat', 'IndexDep', 'Actor', 'IndexKey']) {
        for (const name of ['drop-generation-edges', 'drop-generation']) {
          const statement = stmt(name).replace('__LABEL__', label);
          for (;;) {
            const n = Number((await driver.executeQuery(statement, { gen: neo4j.int(gen) })).records[0]?.get('deleted') ?? 0);
            if (name === 'drop-generation') total += n;
            if (n === 0) break;
          }
        }
      }
      return total;
    },
  };
}

/** Writes to one generation in chunks, and the questions the indexer asks of it while writing. */
function writeCalls({ write, read }: Cypher): Pick<IndexStore, 'putRows' | 'deleteRows' | 'putFlats' | 'rowsReferring' | 'flatsDependingOn' | 'flattened' | 'syncHolds'> {
  return {
    async putRows(gen, objects) {
      const changed: string[] = [];
      for (const part of chunks(objects)) {
        for (const rec of (await write('put-rows', { gen, objects: part })).records) changed.push(rec.get('obj') as string);
      }
      return changed;
    },
    async deleteRows(gen, objects) {
      for (const part of chunks(objects)) await write('delete-rows', { gen, objects: part });
    },
    async putFlats(gen, flats) {
      const changed: string[] = [];
      for (const part of chunks(flats)) changed.push(...((await write('put-flats', { gen, flats: part })).records[0]?.get('changed') as string[] ?? []));
      return changed;
    },
    async rowsReferring(gen, flatIds, limit) {
      const out = new Set<string>();
      for (const part of chunks(flatIds)) {
        const left = limit - out.size;
        if (left <= 0) break;
        for (const rec of (await read('rows-referring', { gen: neo4j.int(gen), flats: part, limit: neo4j.int(left) })).records) out.add(rec.get('obj') as string);
      }
      return [...out];
    },
    async flatsDependingOn(gen, objects) {
      const out = new Set<string>();
      for (const part of chunks(objects)) {
        for (const rec of (await read('flats-depending-on', { gen: neo4j.int(gen), objects: part })).records) out.add(rec.get('obj') as string);
      }
      return [...out];
    },
    async flattened(gen, objects) {
      const out = new Set<string>();
      for (const part of chunks(objects)) {
        for (const rec of (await read('flattened', { gen: neo4j.int(gen), objects: part })).records) out.add(rec.get('obj') as string);
      }
      return out;
    },
    async syncHolds(gen, items) {
      for (const part of chunks(items)) await write('sync-holds', { gen, items: part });
    },
  };
}

/** Checks and holds, batched: concurrent calls share one round trip. */
function pointReads({ read }: Cypher): Pick<IndexStore, 'check' | 'records' | 'holds'> {
  const answer = (rec: Neo4jRecord | undefined): Decision =>
    (rec ? { rowExists: rec.get('rowExists') as boolean, allowed: rec.get('allowed') as boolean } : { rowExists: false, allowed: false });
  const checks = new Batcher<{ row: string; subject: string }, Decision>(
    async ([one]) => [answer((await read('check', one!)).records[0])],
    async (many) => {
      const out: Decision[] = many.map(() => ({ rowExists: false, allowed: false }));
      for (const rec of (await read('check-many', { checks: many })).records) out[Number(rec.get('i'))] = answer(rec);
      return out;
    });

  const holdChecks = new Batcher<{ subject: string; key: string }, boolean>(
    async ([one]) => [Boolean((await read('holds', one!)).records[0]?.get('held'))],
    async (many) => {
      const out = many.map(() => false);
      for (const rec of (await read('holds-many', { checks: many })).records) out[Number(rec.get('i'))] = Boolean(rec.get('held'));
      return out;
    });
  return {
    holds: (subject, key) => holdChecks.ask({ subject, key }),
    check: (subject, object, action) => checks.ask({ row: `${object}#${action}`, subject }),
    async records(subject, object, action) {
      const r = await read('records', { row: `${object}#${action}`, subject });
      const rec = r.records[0];
      return rec
        ? { gen: rec.get('gen'), objectIndex: rec.get('objectIndex'), subjectIndex: rec.get('subjectIndex') }
        : { gen: 0, objectIndex: null, subjectIndex: null };
    },
  };
}

/** The lists and their counts, paged by the statements, from the live generation. */
function listReads({ read }: Cypher): Pick<IndexStore, 'listObjects' | 'countObjects' | 'listSubjects' | 'countSubjects' | 'listHeld' | 'countHeld' | 'listHolders' | 'countHolders'> {
  const held = (subject: string, type: string, relation: string) => ({ subject, typePrefix: `${type}:`, suffix: `#${relation}` });
  return {
    async listHeld(subject, type, relation, skip, limit) {
      const r = await read('list-held', { ...held(subject, type, relation), skip: neo4j.int(skip), limit: neo4j.int(limit) });
      return r.records.map((rec) => rec.get('obj') as string);
    },
    async countHeld(subject, type, relation, pivot) {
      return counted((await read('count-held', { ...held(subject, type, relation), pivot })).records[0]);
    },
    async listHolders(key, subjectType, skip, limit) {
      const r = await read('list-holders', { key, typePrefix: `${subjectType}:`, skip: neo4j.int(skip), limit: neo4j.int(limit) });
      return r.records.map((rec) => rec.get('subject') as string);
    },
    async countHolders(key, subjectType, pivot) {
      return counted((await read('count-holders', { key, typePrefix: `${subjectType}:`, pivot })).records[0]);
    },
    async listObjects(subject, action, type, skip, limit) {
      const r = await read('list-objects', { subject, action, type, skip: neo4j.int(skip), limit: neo4j.int(limit) });
      return r.records.map((rec) => rec.get('obj') as string);
    },
    async countObjects(subject, action, type, pivot) {
      return counted((await read('count-objects', { subject, action, type, pivot })).records[0]);
    },
    async listSubjects(object, action, subjectType, skip, limit) {
      const r = await read('list-subjects', { row: `${object}#${action}`, typePrefix: `${subjectType}:`, skip: neo4j.int(skip), limit: neo4j.int(limit) });
      return r.records.map((rec) => rec.get('subject') as string);
    },
    async countSubjects(object, action, subjectType, pivot) {
      const rec = (await read('count-subjects', { row: `${object}#${action}`, typePrefix: `${subjectType}:`, pivot })).records[0];
      return { ...counted(rec), public: Boolean(rec?.get('public')) };
    },
  };
}
