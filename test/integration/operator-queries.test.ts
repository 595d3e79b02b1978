// The ready queries of cypher/operators.cypher (for Neo4j Browser) answer correctly on a projected graph.
import neo4j, { type Driver } from 'neo4j-driver';
import { loadCypher } from '../../src/stores/neo4j/connection.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let driver: Driver;
const q = loadCypher('operators.cypher');
beforeAll(async () => {
  svc = await startService();
  driver = neo4j.driver(process.env.NEO4J_URI!);
  expect((await svc.http('POST', '/database/schemas', { body: { name: 'Document', fields: { title: 'String' }, serviceOptions: { authorization: { enabled: true } } } })).status)
    .toBe(201);
  for (const [subject, relation, resource] of [
    ['User:alice', 'member', 'Team:t'],
    ['Team:t', 'owner', 'Document:d1'],
    ['User:bob', 'reader', 'Document:d2'],
    ['User:alice', 'owner', 'Document:d3'],
  ]) expect((await svc.http('POST', '/authorization/relations', { body: { subject, relation, resource } })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await driver?.close();
  await svc?.stop();
});

const run = async (name: string, params: Record<string, unknown>) => (await driver.executeQuery(q.get(name)!, params)).records;

it('who-can: the subjects that may read a document, and the keys through which', async () => {
  const rows = await run('who-can', { resource: 'Document:d1', action: 'read', relations: ['reader', 'editor', 'owner'] });
  const bySubject = Object.fromEntries(rows.map((r) => [r.get('subject'), r.get('through')]));
  expect(Object.keys(bySubject).sort()).toEqual(['Team:t', 'User:alice']);
  expect(bySubject['User:alice']).toContain('Team:t#member');
  expect(bySubject['Team:t']).toContain('Document:d1#owner');
});

it('what-can: the documents a user may read', async () => {
  const rows = await run('what-can', { subject: 'User:alice', type: 'Document', action: 'read', relations: ['reader', 'editor', 'owner'] });
  expect(rows.map((r) => r.get('object'))).toEqual(['Document:d1', 'Document:d3']);
  const bob = await run('what-can', { subject: 'User:bob', type: 'Document', action: 'edit', relations: ['editor', 'owner'] });
  expect(bob).toEqual([]);
});

it('path: the tuples from a user to a document', async () => {
  const rows = await run('path', { subject: 'User:alice', resource: 'Document:d1' });
  expect(rows.length).toBe(1);
  const p = rows[0]!.get('p') as { segments: Array<{ relationship: { properties: { relation: string } } }> };
  expect(p.segments.map((s) => s.relationship.properties.relation)).toEqual(['member', 'owner']);
});
