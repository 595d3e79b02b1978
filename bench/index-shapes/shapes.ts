// The flat-nodes and leopard variants: the projection plus flats computed in Node, written by their own statements.
import neo4j, { type Driver } from 'neo4j-driver';
import { NAME_RE, parseObject, tupleText, typeOf, type Tuple } from '../../src/engine/ids.js';
import type { Model } from '../../src/engine/model.js';
import { loadCypher, reader } from '../../src/stores/neo4j/connection.js';
import { canParams } from './can-params.js';
import { FlatMaker, type Flat } from './flats.js';
import { driverFor } from './server.js';
import type { Variant } from './variant.js';

export type Shape = 'flat-nodes' | 'leopard';

const label = (type: string) => {
  if (!NAME_RE.test(type)) throw new Error(`refusing label ${JSON.stringify(type)}`);
  return `\`${type}\``;
};

/** The statements of one shape: the shared ones, then its own (which may replace a shared one). */
export const shapeStatements = (shape: Shape) => new Map([...loadCypher('../bench/index-shapes/common.cypher'), ...loadCypher(`../bench/index-shapes/${shape}.cypher`)]);

export async function shapeVariant(shape: Shape, uri: string, model: Model): Promise<Variant> {
  const driver = driverFor(uri);
  const q = shapeStatements(shape);
  for (const [name, text] of q) if (name.startsWith('schema-')) await driver.executeQuery(text);
  await driver.executeQuery('CALL db.awaitIndexes(300)');
  await driver.executeQuery(q.get('meta')!);
  // Planned once before the load, as the service's warmNeo4j plans the product's statements at start.
  for (const [name, text] of q) {
    if (!name.startsWith('schema-') && !text.includes('__BRANCHES__')) await driver.executeQuery(`EXPLAIN ${text}`).catch(() => undefined);
  }
  const flats = new FlatMaker(model);
  const read = reader(driver);
  return {
    name: shape,
    driver,
    statements: q,
    async loadUnit(tuples) {
      const gen = Number((await read(q.get('meta-read')!, {})).records[0]!.get('gen'));
      await putEdges(driver, q.get('put-edges')!, tuples);
      const { arrowResources, sources } = flats.add(tuples);
      const todo = new Set<string>();
      const ask = async (name: string, objects: string[]) => (objects.length === 0 ? []
        : (await read(q.get(name)!, { gen: neo4j.int(gen), objects })).records.map((r) => r.get('obj') as string));
      for (const o of await ask('flats-depending-on', arrowResources)) todo.add(o);
      const done = new Set(await ask('flattened', sources));
      for (const s of sources) if (!done.has(s)) todo.add(s);
      // In parts of 50 objects (450 flats of a Team), about the product's 500 flats a statement.
      const objects = [...todo];
      for (let i = 0; i < objects.length; i += 50) {
        const changed = flats.flatsOf(objects.slice(i, i + 50), shape === 'leopard');
        if (changed.length) await driver.executeQuery(q.get('put-flats')!, { gen: neo4j.int(gen), ...flatParams(shape, changed) });
      }
    },
    can(subject, action, object) {
      const p = canParams(model, typeOf(subject), action, typeOf(object));
      return { text: q.get('can')!, params: { ...p, subject, object }, answer: (records) => records[0]?.get('allowed') === true };
    },
    list(subject, action, type) {
      const p = canParams(model, typeOf(subject), action, type);
      const branches = ['list-direct', 'list-grants', 'list-flats', 'list-public-flats', ...(Object.keys(p.relArrows).length ? ['list-rel-arrows'] : []),
        ...(p.public ? ['list-public-type'] : []), 'list-self'];
      const text = q.get('list')!.replace('__BRANCHES__', branches.map((b) => q.get(b)!).join('\n  UNION\n  '))
        .replaceAll('__TYPE_LABEL__', label(type));
      return { text, params: { ...p, subject, self: typeOf(subject) === type ? [subject] : [] }, answer: (records) => records.map((r) => r.get('obj') as string) };
    },
  };
}

/**
 * put-edges, one call per pair of labels spliced in, as the product's graph adapter did when these shapes were measured
 * (it now passes them as parameters, one call for all pairs; the per-tuple work in Neo4j is the same).
 */
async function putEdges(driver: Driver, statement: string, tuples: Tuple[]) {
  const groups = new Map<string, Tuple[]>();
  for (const t of tuples) {
    const k = `${typeOf(t.subject)} ${typeOf(t.resource)}`;
    const list = groups.get(k);
    if (list) list.push(t); else groups.set(k, [t]);
  }
  for (const [k, list] of groups) {
    const [st, rt] = k.split(' ') as [string, string];
    await driver.executeQuery(statement.replace('__SUBJECT_LABEL__', label(st)).replace('__RESOURCE_LABEL__', label(rt)), {
      rows: list.map((t) => {
        const s = parseObject(t.subject)!;
        const o = parseObject(t.resource)!;
        return { subject: t.subject, subjectType: s.type, subjectId: s.id, resource: t.resource, resourceType: o.type, resourceId: o.id, key: tupleText(t), name: t.relation };
      }),
    });
  }
}

/** flat-nodes takes one row per flat; leopard one row per source object, with all its flats and the union of their deps. */
function flatParams(shape: Shape, changed: Flat[]) {
  if (shape === 'flat-nodes') return { flats: changed };
  const by = new Map<string, Flat[]>();
  for (const f of changed) by.set(f.obj, [...(by.get(f.obj) ?? []), f]);
  return {
    objects: [...by].map(([obj, list]) => ({ obj, fresh: list.every((f) => f.fresh), deps: [...new Set(list.flatMap((f) => f.deps))],
      flats: list.map((f) => ({ perm: f.perm, public: f.public, keys: f.keys })) })
    ),
  };
}
