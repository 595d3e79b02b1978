// After the start's warm, the reads of a check and of each list find their plans in Neo4j's query cache, whatever the
// lengths of their ids and of their plan's lists: the warm once ran EXPLAINs only (each a cache entry of its own), and
// Neo4j keys a plan by each parameter's length bucket, so a first list for `User:u1` planned again after one for
// `User:abcdefgh` (0.7-2.3 s each; inOneMap).
import type { Driver } from 'neo4j-driver';
import { typeOf } from '../../src/engine/ids.js';
import { indexPlan } from '../../src/engine/index-plan.js';
import { Model } from '../../src/engine/model.js';
import { connectNeo4j } from '../../src/stores/neo4j/connection.js';
import { neo4jIndexStore } from '../../src/stores/neo4j/index-store.js';
import { warmAll } from '../../src/stores/neo4j/warm.js';

let driver: Driver;
beforeAll(async () => {
  driver = await connectNeo4j(process.env.NEO4J_URI!, process.env.NEO4J_USER ?? 'neo4j', process.env.NEO4J_PASSWORD ?? '');
});
afterAll(async () => {
  await driver.close();
});

/** Empties Neo4j's query caches and says how many plans they held ("... cleared of N queries", or "already empty"). */
async function clearedPlans(): Promise<number> {
  const said = String((await driver.executeQuery('CALL db.clearQueryCaches()')).records[0]?.get(0));
  return Number(/of (\d+) quer/.exec(said)?.[1] ?? 0);
}

const DOC = {
  name: 'Document',
  relations: { owner: ['User', 'Team'], reader: ['User', 'Team'], parent: ['Folder'] },
  permissions: { read: ['reader', 'owner', 'owner->read', 'parent->view'] },
};
const FOLDER = { name: 'Folder', relations: { viewer: ['User', 'Team'] }, permissions: { view: ['viewer'] } };

it('adds no plan when a check, alone and batched, a relation check and every list and count run after it', async () => {
  const index = neo4jIndexStore(driver);
  const model = new Model([DOC, FOLDER]);
  const plan = (s: string, type: string) => indexPlan(model, typeOf(s), type, 'read');
  await clearedPlans();
  const warmed = await warmAll(driver);
  expect(warmed.reads).toBeGreaterThan(0);
  const afterWarm = await clearedPlans();
  expect(afterWarm).toBeGreaterThan(warmed.statements);

  await warmAll(driver);
  // What the service sends for a real model: its plans' lists are of other sizes than the warm's, within one bucket.
  const users = Array.from({ length: 30 }, (_, i) => `User:u${i}`);
  const longId = `User:${'x'.repeat(200)}`;
  await index.check('User:u1', 'Document:d1', plan('User:u1', 'Document'));
  await Promise.all(users.slice(0, 12).map((u) => index.check(u, 'Document:d1', plan(u, 'Document'))));
  await Promise.all(users.map((u) => index.check(u, 'Document:d2', plan(u, 'Document'))));
  await index.holds('User:u1', 'Document:d1', 'reader');
  await Promise.all(users.slice(0, 12).map((u) => index.holds(u, 'Document:d1', 'owner')));
  await index.listObjects('User:u1', 'Document', plan('User:u1', 'Document'), 0, 25);
  await index.listObjects(longId, 'Folder', plan(longId, 'Folder'), 0, 25);
  await index.check(longId, 'Folder:f', plan(longId, 'Folder'));
  await index.countObjects('User:u1', 'Document', plan('User:u1', 'Document'), 'Document:d5');
  await index.listSubjects('Document:d1', 'User', plan('User:u1', 'Document'), 25, 25);
  await index.countSubjects('Document:d1', 'Team', plan('Team:t1', 'Document'), 'Team:t3');
  await index.listHeld('User:u1', 'Document', 'reader', 0, 25);
  await index.countHeld('User:u1', 'Document', 'owner', 'Document:d9');
  await index.listHolders('Document:d1', 'reader', 'User', 0, 25);
  await index.countHolders('Document:d1', 'owner', 'Team', '');
  expect(await clearedPlans()).toBe(afterWarm);
}, 120_000);
