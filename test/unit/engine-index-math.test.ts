// The index maths answer exactly what the evaluator answers, on every scenario and on random ones.
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model, type Definition } from '../../src/engine/model.js';
import type { Tuple } from '../../src/engine/ids.js';
import { memoryIndex } from '../support/memory-index.js';
import { loadCases, snapshots, type Scenario } from '../support/scenarios.js';
import { randomScenario } from '../support/random.js';

const keep = (defs: Map<string, Definition>, t: Tuple, grant: boolean) => {
  const m = new Model(defs.values());
  return grant ? m.isValidGrant(t) : m.isValid(t);
};

async function compareAll(sc: Scenario): Promise<number> {
  let n = 0;
  for (const { defs, tuples, grants } of snapshots(sc, keep)) {
    const model = new Model(defs);
    const ev = new Evaluator(model, tuples, grants);
    const index = memoryIndex(model, tuples, grants);
    const objects = [...new Set([...tuples, ...grants].flatMap((t) => [t.subject, t.resource]))];
    const actions = [...new Set([...model.types.keys()].flatMap((t) => model.actionsOf(t)))];
    // Every disagreement is collected and shown at once (one expect per triple would cost more than the maths).
    const disagree: Array<[string, string, string, { index: boolean; evaluator: boolean }]> = [];
    for (const s of objects) {
      for (const o of objects) {
        for (const a of actions) {
          const got = index.can(s, a, o);
          const want = ev.can(s, a, o);
          if (got !== want) disagree.push([s, a, o, { index: got, evaluator: want }]);
          n++;
        }
      }
    }
    expect(disagree).toEqual([]);
  }
  return n;
}

describe('index maths', () => {
  it.each(loadCases().map((c) => [c.file, c.scenario] as const))('%s: index agrees with the evaluator', async (_f, sc) => {
    await compareAll(sc);
  });
  it('random scenarios: index agrees with the evaluator', async () => {
    let n = 0;
    for (let seed = 100; seed < 120; seed++) n += await compareAll(randomScenario(seed, 25));
    expect(n).toBeGreaterThan(5000);
  });
});
