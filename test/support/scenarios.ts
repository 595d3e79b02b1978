// Scenario files (test/fixtures/conformance/cases, or ../shared when present) and their stages.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTupleText, tupleText, type Tuple } from '../../src/engine/ids.js';
import { schemaDefinition, type Definition } from '../../src/engine/model.js';
import type { RawDefinition, Scenario as EngineScenario, Step } from '../../src/engine/scenario.js';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURE_CASES = resolve(here, '../fixtures/conformance/cases');
export const SHARED_CONFORMANCE = resolve(here, '../../../shared/conformance');
export const hasShared = () => existsSync(join(SHARED_CONFORMANCE, 'reference.mjs'));

export type { Check, ListObjectsQuery, ListSubjectsQuery, RawDefinition, Step } from '../../src/engine/scenario.js';
/** A case file as the tests read it: named and with its source, as every file in the cases folder is. */
export interface Scenario extends EngineScenario {
  name: string;
  source: string;
}

export function loadCases(dir = FIXTURE_CASES): Array<{ file: string; scenario: Scenario }> {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => ({ file: f, scenario: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Scenario }));
}

export const expand = (d: RawDefinition): Definition => d.schema ? schemaDefinition(d.name) : { name: d.name, relations: d.relations ?? {}, permissions: d.permissions ?? {} };

export const stepsOf = (sc: Scenario): Step[] => [{ ...sc, op: 'init' }, ...(sc.steps ?? [])];

export const parse = (t: string): Tuple => {
  const p = parseTupleText(t);
  if (!p) throw new Error(`malformed tuple in scenario: ${t}`);
  return p;
};

/** The state after each step, for evaluators that take whole snapshots. */
export function* snapshots(sc: Scenario, valid: (defs: Map<string, Definition>, t: Tuple, grant: boolean) => boolean) {
  const defs = new Map<string, Definition>();
  const tuples = new Map<string, Tuple>();
  const grants = new Map<string, Tuple>();
  for (const step of stepsOf(sc)) {
    for (const d of step.definitions ?? []) defs.set(d.name, expand(d));
    const apply = (list: string[] | undefined, into: Map<string, Tuple>, grant: boolean) => {
      for (const text of list ?? []) {
        const t = parse(text);
        if (step.op === 'delete') into.delete(tupleText(t));
        else if (valid(defs, t, grant)) into.set(tupleText(t), t);
      }
    };
    if (step.op !== 'define') {
      apply(step.tuples, tuples, false);
      apply(step.grants, grants, true);
    }
    yield { step, defs: [...defs.values()], tuples: [...tuples.values()], grants: [...grants.values()] };
  }
}
