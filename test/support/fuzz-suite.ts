// Random scenarios through HTTP: answers must equal the engine's evaluator (and reference.mjs when ../shared exists).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model, type Definition } from '../../src/engine/model.js';
import type { Tuple } from '../../src/engine/ids.js';
import { randomScenario } from './random.js';
import { replay } from './replay.js';
import { hasShared, SHARED_CONFORMANCE, snapshots, stepsOf, type Scenario } from './scenarios.js';
import { startService, type TestService } from './service.js';

const keep = (defs: Map<string, Definition>, t: Tuple, grant: boolean) => {
  const m = new Model(defs.values());
  return grant ? m.isValidGrant(t) : m.isValid(t);
};

/** Fills every stage's expectations from the engine's own evaluator (the oracle in a plain clone). */
function withExpectations(sc: Scenario): Scenario {
  const steps = stepsOf(sc);
  let i = 0;
  for (const { defs, tuples, grants } of snapshots(sc, keep)) {
    const ev = new Evaluator(new Model(defs), tuples, grants);
    for (const c of steps[i]!.checks ?? []) c.expect = ev.can(c.subject, c.action, c.resource);
    i++;
  }
  const [first, ...rest] = steps;
  return { ...sc, checks: first!.checks, steps: rest };
}

/**
 * The suite for one file, on the stores of its tier: random scenarios of `seeds` against the engine's evaluator, and
 * `sharedSeeds` of ../shared's fuzz.mjs against the reference evaluator's expectations.
 */
export function fuzzSuite(seeds: number[], sharedSeeds: number[]) {
  let svc: TestService;
  // Lists longer than 3 are counted and paged in the index; shorter ones are read whole.
  beforeAll(async () => {
    svc = await startService({ LIST_WHOLE: '3' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  describe('fuzz against the engine evaluator', () => {
    it.each(seeds)('seed %i', async (seed) => {
      const sc = withExpectations(randomScenario(seed * 7919, 40, 120));
      const stats = await replay(svc, sc, `fz${seed}_`, seed);
      expect(stats.problems).toEqual([]);
      expect(stats.checks).toBeGreaterThanOrEqual(360);
    }, 120_000);
  });

  // Registered only where ../shared exists: its generator and reference evaluator are not part of a plain clone.
  if (hasShared()) {
    describe('fuzz.mjs scenarios (reference evaluator expectations)', () => {
      it.each(sharedSeeds)('fuzz.mjs seed %i', async (seed) => {
        const { generate } = await import(pathToFileURL(join(SHARED_CONFORMANCE, 'fuzz.mjs')).href);
        const sc = generate({ seed, sample: 100, tuples: 60 }) as Scenario;
        const stats = await replay(svc, sc, `rf${seed}_`, seed);
        expect(stats.problems).toEqual([]);
        expect(stats.checks).toBeGreaterThanOrEqual(300);
      }, 300_000);
    });
  }
}
