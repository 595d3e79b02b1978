// The index's list queries are planned from indexes and the subject's own edges, never by scanning every row: at 1M a
// scan of IndexRow made each cold list cost about 0.5 s (the public-flat branch was planned from the rows).
import neo4j, { type Driver } from 'neo4j-driver';
import { loadCypher } from '../../src/stores/neo4j/connection.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let driver: Driver;

interface Plan { operatorType: string; arguments: Record<string, unknown>; children: Plan[] }
const operators = (p: Plan): string[] => [`${p.operatorType} ${String(p.arguments.Details ?? '')}`, ...p.children.flatMap(operators)];

beforeAll(async () => {
  svc = await startService();
  driver = neo4j.driver(process.env.NEO4J_URI!);
  const doc = { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] }, permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'] } };
  expect((await svc.http('POST', '/authorization/resources', { body: doc })).status).toBe(200);
  const updates = [
    ...Array.from({ length: 300 }, (_, i) => ({ operation: 'create', subject: 'Team:t1', relation: 'owner', resource: `Document:d${i}` })),
    ...Array.from({ length: 300 }, (_, i) => ({ operation: 'create', subject: `User:u${i % 30}`, relation: 'reader', resource: `Document:d${i}` })),
    { operation: 'create', subject: 'User:u1', relation: 'member', resource: 'Team:t1' },
  ];
  expect((await svc.http('POST', '/authorization/relations/write', { body: { updates } })).status).toBe(200);
}, 120_000);
afterAll(async () => { await driver?.close(); await svc?.stop(); });

it.each(['list-objects', 'count-objects'])('plans %s without a scan of every row or node', async (name) => {
  const statement = loadCypher('index.cypher').get(name)!;
  const r = await driver.executeQuery(`EXPLAIN ${statement}`, { subject: 'User:u1', type: 'Document', action: 'read', skip: neo4j.int(0), limit: neo4j.int(25), pivot: '' });
  const ops = operators(r.summary.plan as unknown as Plan);
  expect(ops.filter((o) => /LabelScan|AllNodesScan/.test(o))).toEqual([]);
  expect(ops.some((o) => o.startsWith('NodeIndexSeek') && o.includes('IndexFlat(gen, public)'))).toBe(true);
});
