// The engine's evaluator against every scenario's expectations, and against reference.mjs when ../shared exists.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parseObject } from '../../src/engine/ids.js';
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model } from '../../src/engine/model.js';
import { hasShared, loadCases, SHARED_CONFORMANCE, snapshots, type Scenario } from '../support/scenarios.js';
import { randomScenario } from '../support/random.js';

const validity = (defs: import('../../src/engine/model.js').Definition[]) => new Model(defs);
const keep = (defs: Map<string, import('../../src/engine/model.js').Definition>, t: import('../../src/engine/ids.js').Tuple, grant: boolean) => {
  const m = new Model(defs.values());
  return grant ? m.isValidGrant(t) : m.isValid(t);
};
const bare = (o: string) => parseObject(o)!.id;

describe.each(loadCases())('scenario $file', ({ scenario }: { scenario: Scenario }) => {
  it('every check and list matches', () => {
    let count = 0;
    for (const { step, defs, tuples, grants } of snapshots(scenario, keep)) {
      const ev = new Evaluator(validity(defs), tuples, grants);
      for (const c of step.checks ?? []) {
        expect([c, ev.can(c.subject, c.action, c.resource)]).toEqual([c, c.expect]);
        const chain = ev.explain(c.subject, c.action, c.resource);
        expect(chain !== null).toBe(c.expect);
        count++;
      }
      for (const q of step.listObjects ?? []) {
        expect(ev.listObjects(q.subject, q.action, q.type).map(bare)).toEqual([...q.expect].sort());
      }
      for (const q of step.listSubjects ?? []) {
        expect(ev.listSubjects(q.action, q.resource, q.subjectType).subjects.map(bare)).toEqual([...q.expect].sort());
      }
    }
    expect(count).toBeGreaterThan(0);
  });
});

// Registered only where ../shared exists: a plain clone has no reference evaluator to compare with.
if (hasShared()) {
  describe('cross-check with ../shared/conformance/reference.mjs', () => {
    it('agrees on random scenarios, every triple', async () => {
      const ref = await import(pathToFileURL(join(SHARED_CONFORMANCE, 'reference.mjs')).href);
      let compared = 0;
      for (let seed = 1; seed <= 25; seed++) {
        const sc = randomScenario(seed);
        for (const { defs, tuples, grants } of snapshots(sc, keep)) {
          const ours = new Evaluator(new Model(defs), tuples, grants);
          const theirs = ref.makeEvaluator(defs, tuples, grants);
          const objects = [...new Set([...tuples, ...grants].flatMap((t) => [t.subject, t.resource]))];
          // Disagreements are collected and shown at once: one expect per triple cost more than both evaluators.
          const disagree: Array<[string, string, string, { ours: boolean; reference: boolean }]> = [];
          for (const s of objects) {
            for (const o of objects) {
              for (const a of ['view', 'edit', 'share', 'read', 'owner', 'member']) {
                const mine = ours.can(s, a, o);
                const reference = theirs.can(s, a, o) as boolean;
                if (mine !== reference) disagree.push([s, a, o, { ours: mine, reference }]);
                compared++;
              }
            }
          }
          expect(disagree).toEqual([]);
        }
      }
      expect(compared).toBeGreaterThan(10000);
    });
  });
}
