// The tuple graph in Neo4j: MERGE and DELETE by edge key, so replaying any change converges.
import neo4j, { type Driver } from 'neo4j-driver';
import { byCodeUnits, NAME_RE, parseObject, tupleText, type Tuple } from '../../engine/ids.js';
import type { EdgeChange, GraphStore } from '../ports/graph.js';
import { loadCypher, reader } from './connection.js';

/** A type name as a label: checked, whether spliced into a statement or passed as a dynamic label's parameter. */
const checked = (type: string) => {
  if (!NAME_RE.test(type)) throw new Error(`refusing label ${JSON.stringify(type)}`);
  return type;
};
const label = (type: string) => `\`${checked(type)}\``;

/**
 * Set on every TUPLE edge the projection writes (not only new ones), so any re-apply fills edges older than them. The
 * search text is left to the listing's catch-up (cypher/listing.cypher): an edge without it is marked searchPending, and
 * a rewrite keeps the mark the catch-up left (its settle takes it off).
 */
const LIST_FIELDS = ['t.resourceType = row.resourceType', 't.searchPending = CASE WHEN t.keyLower IS NULL THEN true ELSE t.searchPending END'];
/** put-edges' SET clause: the mark only for a rebuild's writes, the list fields only on TUPLE edges. */
const setClause = (edge: string, mark: string) => {
  const fields = [...(mark ? ['t.mark = $mark'] : []), ...(edge === 'TUPLE' ? LIST_FIELDS : [])];
  return fields.length ? `SET ${fields.join(', ')}` : '';
};

/** put-edges (`template`, from projection.cypher) for one edge kind, with the rebuild's mark or without it. */
const putEdges = (template: string, edge: 'TUPLE' | 'GRANT', mark: string) =>
  template.replace('__EDGE__', edge)
    .replace('__NAME_PROPERTY__', edge === 'GRANT' ? 'permission' : 'relation').replace('__SET__', setClause(edge, mark));

/** The put-edges statements plain writes send, for warmNeo4j to plan at start. */
export const putEdgesStatements = () => {
  const template = loadCypher('projection.cypher').get('put-edges')!;
  return [putEdges(template, 'TUPLE', ''), putEdges(template, 'GRANT', '')];
};

/** Edges one put-edges or delete statement writes: index work sends 2,000 tuples a unit, a caller may send more. */
const SYNC_ROWS = 2000;

type Rec = { get(k: string): unknown };
const split = (records: Rec[]) => {
  const tuples: Tuple[] = [];
  const grants: Tuple[] = [];
  for (const r of records) {
    const t = { subject: r.get('subject') as string, relation: r.get('name') as string, resource: r.get('resource') as string };
    (r.get('grant') ? grants : tuples).push(t);
  }
  return { tuples, grants };
};

export function neo4jGraphStore(driver: Driver): GraphStore {
  const q = loadCypher('projection.cypher');
  const stmt = (name: string) => q.get(name)!;
  const run = reader(driver);
  const read = (name: string, params: Record<string, unknown>) => run(stmt(name), params);

  return {
    async sync(changes, mark = '') {
      // Creates are grouped by edge kind (the labels are parameters).
      const groups = new Map<'TUPLE' | 'GRANT', EdgeChange[]>();
      const gone = { tuples: [] as string[], grants: [] as string[] };
      for (const c of changes) {
        if (!c.present) {
          (c.grant ? gone.grants : gone.tuples).push(tupleText(c.tuple));
          continue;
        }
        const k = c.grant ? 'GRANT' : 'TUPLE';
        const list = groups.get(k);
        if (list) list.push(c); else groups.set(k, [c]);
      }
      // In key order (batch by batch, as the catch-up's index gives them too): writers locking one order cannot deadlock.
      for (const [edge, list] of groups) {
        const rows = list.map(({ tuple: t }) => {
          const s = parseObject(t.subject)!;
          const o = parseObject(t.resource)!;
          return { subject: t.subject, subjectType: checked(s.type), subjectId: s.id, resource: t.resource, resourceType: checked(o.type), resourceId: o.id, key: tupleText(t),
            name: t.relation };
        }).sort((a, b) => byCodeUnits(a.key, b.key));
        const statement = putEdges(stmt('put-edges'), edge, mark);
        // At most SYNC_ROWS edges a transaction, which db.memory.transaction.max (half the heap) always holds.
        for (let i = 0; i < rows.length; i += SYNC_ROWS) await driver.executeQuery(statement, { mark, rows: rows.slice(i, i + SYNC_ROWS) });
      }
      gone.tuples.sort(byCodeUnits);
      for (let i = 0; i < gone.tuples.length; i += SYNC_ROWS) await driver.executeQuery(stmt('delete-tuples'), { keys: gone.tuples.slice(i, i + SYNC_ROWS) });
      for (let i = 0; i < gone.grants.length; i += SYNC_ROWS) await driver.executeQuery(stmt('delete-grants'), { keys: gone.grants.slice(i, i + SYNC_ROWS) });
    },
    async on(objects, limit) {
      if (objects.length === 0) return { tuples: [], grants: [] };
      return split((await read('on', { keys: objects, limit: neo4j.int(limit ?? Number.MAX_SAFE_INTEGER) })).records);
    },
    async from(objects, limit) {
      if (objects.length === 0 || limit <= 0) return [];
      return (await read('from', { keys: objects, limit: neo4j.int(limit) })).records.map((r) => r.get('resource') as string);
    },
    async ofType(type, limit) {
      const r = await run(stmt('of-type').replaceAll('__TYPE_LABEL__', label(type)), { limit: neo4j.int(limit) });
      return r.records.map((rec) => rec.get('key') as string);
    },
    async namedAsSubject(items) {
      const out = new Set<string>();
      for (let i = 0; i < items.length; i += 1000) {
        for (const r of (await read('named-as-subject', { items: items.slice(i, i + 1000) })).records) out.add(r.get('key') as string);
      }
      return out;
    },
    async direct(subject, resource) {
      return split((await read('direct', { subject, resource })).records);
    },
    async touchingType(type, after, objects) {
      const prefix = `${type}:`;
      const page = await read('objects-of-type-after', { after: after || prefix, end: `${type};`, limit: neo4j.int(objects) });
      const keys = page.records.map((r) => r.get('key') as string);
      if (keys.length === 0) return { tuples: [], grants: [], next: null };
      const edges = split((await read('touching-objects', { keys, prefix })).records);
      return { ...edges, next: keys.length < objects ? null : keys.at(-1)! };
    },
    async edgesAfter(grant, after, limit, mark) {
      const r = await read(grant ? 'grants-after' : 'tuples-after', { after, mark, limit: neo4j.int(limit) });
      return r.records.map((rec) => ({ key: rec.get('key') as string, marked: rec.get('marked') as boolean }));
    },
    async tuplesBetween(subject, resource) {
      const r = await driver.executeQuery(stmt('tuples-between'), { subject, resource });
      return r.records.map((rec) => ({ subject: rec.get('subject'), relation: rec.get('relation'), resource: rec.get('resource') }));
    },
  };
}
