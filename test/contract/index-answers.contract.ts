// The index store's answers equal the engine evaluator's: records built with the index maths from scenarios (the
// conformance cases and random ones), each state written into a generation, then the next state applied over it.
import { Evaluator } from '../../src/engine/evaluator.js';
import { typeOf, type Tuple } from '../../src/engine/ids.js';
import { Model, type Definition } from '../../src/engine/model.js';
import type { GraphStore } from '../../src/stores/ports/graph.js';
import type { IndexStore } from '../../src/stores/ports/index-store.js';
import { randomScenario } from '../support/random.js';
import { loadCases, snapshots, type Scenario } from '../support/scenarios.js';
import { applyRecords, indexCan, indexListObjects, indexListSubjects, snapshotRecords, type SnapshotRecords } from './index-records.js';

const keep = (defs: Map<string, Definition>, t: Tuple, grant: boolean) => {
  const m = new Model(defs.values());
  return grant ? m.isValidGrant(t) : m.isValid(t);
};

/** Conformance cases with arrows, cycles, grants and public entries, and random models. */
const CASES = ['folders-teams-documents.json', 'cycle-three-groups.json', 'direct-grants.json', 'many-hop-folder-chain.json', 'delete-one-of-two-paths.json',
  'ids-with-special-characters.json', 'builtin-team-owned-by-team.json', 'redefine-add-relation.json', 'redefine-permission-entries.json', 'redefine-public-toggle.json',
  'redefine-remove-allowed-type.json', 'redefine-remove-relation.json', 'redefine-drop-arrow-target-permission.json'];

function scenarios(): Array<[string, Scenario]> {
  const cases = loadCases().filter((c) => CASES.includes(c.file)).map((c) => [c.file, c.scenario] as [string, Scenario]);
  return [...cases, ...[7, 31].map((seed) => [`random ${seed}`, randomScenario(seed, 18, 0)] as [string, Scenario])];
}

/**
 * Lists run 40 at a time: fewer than the driver pools connections (50), so none waits for one (at 100 a cold Neo4j on a
 * loaded machine made one wait past the 10 s acquisition timeout).
 */
const LIST_WIDTH = 40;
/**
 * Checks run 400 at a time: concurrent checks share a query in the Neo4j adapter (its batcher: two queries at once, up
 * to 64 checks each), so they hold two connections however many wait. Measured on Neo4j: 1,176 checks in 0.65 s, 1.5 s
 * at 40.
 */
const CHECK_WIDTH = 400;

async function inParallel<T>(reads: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < reads.length; i += width) out.push(...await Promise.all(reads.slice(i, i + width).map((r) => r())));
  return out;
}

/**
 * The actions to ask of an object of each type: its own (relations and permissions), and one that another type has and
 * it lacks (the service asks the index that too, and it must grant nothing). Every action of every type on every pair
 * was about four times the reads, most of them that same refusal: minutes on Neo4j.
 */
function actionsToAsk(model: Model): (type: string) => string[] {
  const all = [...new Set([...model.types.keys()].flatMap((t) => model.actionsOf(t)))];
  const memo = new Map<string, string[]>();
  return (type) => {
    let list = memo.get(type);
    if (!list) {
      const own = model.actionsOf(type);
      const foreign = all.find((a) => !own.includes(a));
      list = foreign === undefined ? own : [...own, foreign];
      memo.set(type, list);
    }
    return list;
  };
}

/** Every (subject, object) of the snapshot with the actions to ask, and every list of one, answered by the index and the evaluator. */
async function compare(index: IndexStore, model: Model, tuples: Tuple[], grants: Tuple[], checksOnly: boolean) {
  const ev = new Evaluator(model, tuples, grants);
  const objects = [...new Set([...tuples, ...grants].flatMap((t) => [t.subject, t.resource]))].sort();
  const types = [...new Set(objects.map(typeOf))];
  const actions = actionsToAsk(model);
  const reads: Array<() => Promise<unknown>> = [];
  const want: unknown[] = [];
  for (const s of objects) {
    for (const o of objects) {
      for (const a of actions(typeOf(o))) {
        reads.push(async () => [s, a, o, await indexCan(index, model, s, a, o)]);
        want.push([s, a, o, ev.can(s, a, o)]);
      }
    }
  }
  const checks = reads.length;
  if (!checksOnly) addLists(reads, want, index, model, ev, objects, types, actions);
  const got = [...await inParallel(reads.slice(0, checks), CHECK_WIDTH), ...await inParallel(reads.slice(checks), LIST_WIDTH)];
  // Only the differences, each beside what the evaluator says: a diff of thousands of answers takes jest minutes.
  const differ = got.flatMap((g, i) => (JSON.stringify(g) === JSON.stringify(want[i]) ? [] : [{ index: g, evaluator: want[i] }]));
  expect(differ.slice(0, 10)).toEqual([]);
  return want.length;
}

/** Every list of objects and of subjects among `objects`, beside the evaluator's. */
function addLists(reads: Array<() => Promise<unknown>>, want: unknown[], index: IndexStore, model: Model, ev: Evaluator, objects: string[], types: string[],
  actions: (type: string) => string[]) {
  for (const s of objects) {
    for (const t of types) {
      for (const a of actions(t)) {
        reads.push(async () => ['objects', s, a, t, await indexListObjects(index, model, s, a, t)]);
        want.push(['objects', s, a, t, ev.listObjects(s, a, t)]);
      }
    }
  }
  for (const o of objects) {
    for (const t of types) {
      for (const a of actions(typeOf(o))) {
        const fromEv = ev.listSubjects(a, o, t);
        // A public decision lists every known subject in the evaluator; the index says public and lists the holders,
        // which must be among them.
        const within = (list: string[]) => (list.every((x) => fromEv.subjects.includes(x)) ? 'within' : list);
        reads.push(async () => {
          const got = await indexListSubjects(index, model, a, o, t);
          return ['subjects', a, o, t, { subjects: fromEv.public ? within(got.subjects) : got.subjects, public: got.public }];
        });
        want.push(['subjects', a, o, t, { subjects: fromEv.public ? 'within' : fromEv.subjects, public: fromEv.public }]);
      }
    }
  }
}

/**
 * `only`: the scenarios to run, by name (all of them unless told). `checksOnly`: compare checks, not lists (for an
 * adapter option that changes only how checks are answered).
 */
export function indexAnswersContract(h: () => { index: IndexStore; graph: GraphStore; wipe(): Promise<void> }, liveGen: () => Promise<number>, only?: string[],
  checksOnly = false) {
  const index = () => h().index;
  describe("index store: answers equal the evaluator's", () => {
    it.each(scenarios().filter(([name]) => !only || only.includes(name)))('%s: every state, written whole and applied over the one before', async (_name, sc) => {
      let before: SnapshotRecords | undefined;
      let incremental: number | undefined;
      let n = 0;
      await h().wipe();
      for (const { defs, tuples, grants } of snapshots(sc, keep)) {
        const model = new Model(defs);
        const records = snapshotRecords(model, tuples, grants, before);
        // The state written whole into a fresh generation...
        const whole = await liveGen();
        await applyRecords(index(), h().graph, whole, records, before);
        n += await compare(index(), model, tuples, grants, checksOnly);
        await index().dropGeneration(whole);
        // ...and applied over the previous state in a generation that lives on from step to step.
        if (incremental === undefined) incremental = await liveGen();
        else await index().switchGeneration(incremental);
        await applyRecords(index(), h().graph, incremental, records, before);
        n += await compare(index(), model, tuples, grants, checksOnly);
        before = records;
      }
      await index().dropGeneration(incremental!);
      expect(n).toBeGreaterThan(0);
    }, 240_000); // thousands of reads per state: a minute on Neo4j on a loaded machine
  });
}
