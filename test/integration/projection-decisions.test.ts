// Decisions from the projection (how a type is answered while its re-index is pending): every scenario's expectations,
// and the evaluator on random states. On the twins (TEST_STORES=memory) over the in-memory graph, where it tests the
// service's own logic; on a real Neo4j, where it tests the graph reads it makes, with half the random states.
import type { Driver } from 'neo4j-driver';
import { parseObject, tupleText, type Tuple } from '../../src/engine/ids.js';
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model, type Definition } from '../../src/engine/model.js';
import { ProjectionDecisions } from '../../src/services/authorization/projection-decisions.js';
import { memoryGraphStore } from '../../src/stores/memory/graph.js';
import { MemoryGraph } from '../../src/stores/memory/graph-state.js';
import type { GraphStore } from '../../src/stores/ports/graph.js';
import { randomScenario } from '../support/random.js';
import { prefixer } from '../support/replay.js';
import { loadCases, snapshots, type Scenario } from '../support/scenarios.js';

const onTwins = process.env.TEST_STORES === 'memory';
/** Random states compared: each is thousands of reads, most of the file's time on Neo4j. */
const RANDOM_SEEDS = onTwins ? 4 : 2;
let driver: Driver | undefined;
let graph: GraphStore;
let decisions: ProjectionDecisions;

beforeAll(async () => {
  if (onTwins) graph = memoryGraphStore(new MemoryGraph());
  else {
    // Loaded here: a file on the twins never loads the driver.
    const [{ default: neo4j }, { neo4jGraphStore }] = await Promise.all([import('neo4j-driver'), import('../../src/stores/neo4j/graph.js')]);
    driver = neo4j.driver(process.env.NEO4J_URI!);
    let deleted = 1;
    while (deleted > 0) {
      const r = await driver.executeQuery('MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c');
      deleted = Number(r.records[0]!.get('c'));
    }
    graph = neo4jGraphStore(driver);
  }
  decisions = new ProjectionDecisions(graph);
});
afterAll(async () => {
  await driver?.close();
});

const keep = (defs: Map<string, Definition>, t: Tuple, grant: boolean) => {
  const m = new Model(defs.values());
  return grant ? m.isValidGrant(t) : m.isValid(t);
};
const bare = (o: string) => parseObject(o)!.id;

/** Runs the reads 100 at a time. */
async function inParallel<T>(reads: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < reads.length; i += 100) out.push(...await Promise.all(reads.slice(i, i + 100).map((r) => r())));
  return out;
}

/** Brings the projection to one snapshot: its tuples and grants present, the previous snapshot's others gone. */
function syncer() {
  let before = new Map<string, { tuple: Tuple; grant: boolean }>();
  return async (tuples: Tuple[], grants: Tuple[]) => {
    const now = new Map<string, { tuple: Tuple; grant: boolean }>();
    for (const t of tuples) now.set(`t ${tupleText(t)}`, { tuple: t, grant: false });
    for (const g of grants) now.set(`g ${tupleText(g)}`, { tuple: g, grant: true });
    const gone = [...before].filter(([k]) => !now.has(k)).map(([, v]) => ({ ...v, present: false }));
    await graph.sync([...[...now.values()].map((v) => ({ ...v, present: true })), ...gone]);
    before = now;
  };
}

describe.each(loadCases())('scenario $file', ({ file, scenario }: { file: string; scenario: Scenario }) => {
  it('every check and list matches, answered from the projection', async () => {
    const prefix = `p${file.replace(/[^a-z0-9]/gi, '').slice(0, 24)}_`;
    const px = prefixer(prefix);
    const unprefixed = (id: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : id);
    const object = (o: string) => px.object(o);
    const sync = syncer();
    let count = 0;
    for (const { step, defs, tuples, grants } of snapshots(scenario, keep)) {
      const model = new Model(defs.map((d) => px.definition({ name: d.name, relations: d.relations, permissions: d.permissions })));
      const mapped = (list: Tuple[]) => list.map((t) => ({ subject: object(t.subject), relation: t.relation, resource: object(t.resource) }));
      await sync(mapped(tuples), mapped(grants));
      for (const c of step.checks ?? []) {
        expect([c, await decisions.can(model, object(c.subject), c.action, object(c.resource))]).toEqual([c, c.expect]);
        count++;
      }
      for (const q of step.listObjects ?? []) {
        const got = await decisions.listObjects(model, object(q.subject), q.action, px.type(q.type));
        expect([q, got.map(bare).map(unprefixed)]).toEqual([q, [...q.expect].map(String).sort()]);
      }
      for (const q of step.listSubjects ?? []) {
        const got = await decisions.listSubjects(model, q.action, object(q.resource), px.type(q.subjectType));
        if (got.public) continue; // not compared, as in the suite
        expect([q, got.subjects.map(bare).map(unprefixed)]).toEqual([q, [...q.expect].map(String).sort()]);
      }
    }
    expect(count).toBeGreaterThan(0);
  });
});

describe('random states', () => {
  it('agrees with the evaluator over every subject, action and object', async () => {
    let compared = 0;
    for (let seed = 1; seed <= RANDOM_SEEDS; seed++) {
      const px = prefixer(`r${seed}_`);
      const sync = syncer();
      const sc = randomScenario(seed);
      for (const { defs, tuples, grants } of snapshots(sc, keep)) {
        const model = new Model(defs.map((d) => px.definition({ name: d.name, relations: d.relations, permissions: d.permissions })));
        const mapped = (list: Tuple[]) => list.map((t) => ({ subject: px.object(t.subject), relation: t.relation, resource: px.object(t.resource) }));
        const ts = mapped(tuples);
        const gs = mapped(grants);
        await sync(ts, gs);
        const ev = new Evaluator(model, ts, gs);
        const objects = [...new Set([...ts, ...gs].flatMap((t) => [t.subject, t.resource]))];
        const types = [...new Set(objects.map((o) => parseObject(o)!.type))];
        // Every decision of the state asked at once, a hundred at a time (one awaited after another took 44 s), and only
        // the differences compared, each beside the evaluator's answer.
        const asks: Array<() => Promise<unknown[]>> = [];
        const want: unknown[][] = [];
        for (const a of ['view', 'edit', 'owner']) {
          for (const o of objects) {
            for (const s of objects) {
              asks.push(async () => [s, a, o, await decisions.can(model, s, a, o)]);
              want.push([s, a, o, ev.can(s, a, o)]);
            }
          }
          for (const s of objects) {
            for (const type of types) {
              asks.push(async () => [s, a, type, await decisions.listObjects(model, s, a, type)]);
              want.push([s, a, type, ev.listObjects(s, a, type)]);
            }
          }
        }
        const got = await inParallel(asks);
        const differ = got.flatMap((g, i) => (JSON.stringify(g) === JSON.stringify(want[i]) ? [] : [{ projection: g, evaluator: want[i] }]));
        expect(differ.slice(0, 10)).toEqual([]);
        compared += want.filter((w) => typeof w[3] === 'boolean').length;
      }
    }
    expect(compared).toBeGreaterThan(1000 * RANDOM_SEEDS);
  }, 240_000);
});

describe('bounds', () => {
  it('refuses with INDEX_BEHIND a decision that would read more tuples than its bound, and answers one within it', async () => {
    const model = new Model([{ name: 'Wide', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } }]);
    const readers = Array.from({ length: 60 }, (_, i) => ({ subject: `User:bound-${i}`, relation: 'viewer', resource: 'Wide:crowded' }));
    await graph.sync([...readers, { subject: 'User:bound-0', relation: 'viewer', resource: 'Wide:quiet' }].map((tuple) => ({ tuple, grant: false, present: true })));
    const bounded = new ProjectionDecisions(graph, 50);
    await expect(bounded.can(model, 'User:bound-59', 'view', 'Wide:crowded')).rejects.toMatchObject({ code: 'INDEX_BEHIND' });
    await expect(bounded.listSubjects(model, 'view', 'Wide:crowded', 'User')).rejects.toMatchObject({ code: 'INDEX_BEHIND' });
    expect(await bounded.can(model, 'User:bound-0', 'view', 'Wide:quiet')).toBe(true);
    expect(await new ProjectionDecisions(graph, 60).can(model, 'User:bound-59', 'view', 'Wide:crowded')).toBe(true);
  });
});
