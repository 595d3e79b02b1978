// The index maths answer exactly what the evaluator answers, on every scenario and on random ones.
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model, type Definition } from '../../src/engine/model.js';
import type { Tuple } from '../../src/engine/ids.js';
import { indexCan } from '../support/memory-index.js';
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
    const objects = [...new Set([...tuples, ...grants].flatMap((t) => [t.subject, t.resource]))];
    const actions = [...new Set([...model.types.keys()].flatMap((t) => model.actionsOf(t)))];
    for (const s of objects) for (const o of objects) for (const a of actions) {
      const got = indexCan(model, tuples, grants, s, a, o);
      expect([s, a, o, got]).toEqual([s, a, o, ev.can(s, a, o)]);
      n++;
    }
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
