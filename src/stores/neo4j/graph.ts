// The tuple graph in Neo4j: MERGE-based, so replaying any tuple converges.
import type { Driver } from 'neo4j-driver';
import { NAME_RE, parseObject, tupleText, type Tuple } from '../../engine/ids.js';
import type { GraphStore } from '../ports.js';
import { loadCypher } from './connection.js';

const label = (type: string) => {
  if (!NAME_RE.test(type)) throw new Error(`refusing label ${JSON.stringify(type)}`);
  return `\`${type}\``;
};

export function neo4jGraphStore(driver: Driver): GraphStore {
  const q = loadCypher('projection.cypher');
  const put = q.get('put-tuple')!;
  return {
    async putTuple(t) {
      const s = parseObject(t.subject)!;
      const o = parseObject(t.resource)!;
      const statement = put.replace('__SUBJECT_LABEL__', label(s.type)).replace('__RESOURCE_LABEL__', label(o.type));
      await driver.executeQuery(statement, {
        subject: t.subject, subjectType: s.type, subjectId: s.id, resource: t.resource, resourceType: o.type, resourceId: o.id,
        key: tupleText(t), relation: t.relation,
      });
    },
    async putTuples(tuples) {
      // Grouped by label pair, since labels cannot be parameters.
      const groups = new Map<string, Tuple[]>();
      for (const t of tuples) {
        const k = `${parseObject(t.subject)!.type} ${parseObject(t.resource)!.type}`;
        if (!groups.has(k)) groups.set(k, []);
        groups.get(k)!.push(t);
      }
      for (const [k, list] of groups) {
        const [st, rt] = k.split(' ') as [string, string];
        const statement = q.get('put-tuples')!.replace('__SUBJECT_LABEL__', label(st)).replace('__RESOURCE_LABEL__', label(rt));
        await driver.executeQuery(statement, { rows: list.map((t) => {
          const s = parseObject(t.subject)!;
          const o = parseObject(t.resource)!;
          return { subject: t.subject, subjectType: s.type, subjectId: s.id, resource: t.resource, resourceType: o.type,
            resourceId: o.id, key: tupleText(t), relation: t.relation };
        }) });
      }
    },
    async deleteTuple(t) {
      await driver.executeQuery(q.get('delete-tuple')!, { key: tupleText(t) });
    },
    async tuplesOnResources(keys) {
      const r = await driver.executeQuery(q.get('tuples-on')!, { keys }, { routing: 'READ' });
      return r.records.map((rec) => ({ subject: rec.get('subject'), relation: rec.get('relation'), resource: rec.get('resource') }));
    },
    async tuplesOfSubjects(keys) {
      const r = await driver.executeQuery(q.get('tuples-of')!, { keys }, { routing: 'READ' });
      return r.records.map((rec) => ({ subject: rec.get('subject'), relation: rec.get('relation'), resource: rec.get('resource') }));
    },
    async tuplesBetween(subject, resource) {
      const r = await driver.executeQuery(q.get('tuples-between')!, { subject, resource });
      return r.records.map((rec) => ({ subject: rec.get('subject'), relation: rec.get('relation'), resource: rec.get('resource') }));
    },
  };
}
