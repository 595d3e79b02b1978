// Why a check of the scenario is decided as it is: the stored tuples from the subject to the resource, found by the
// same replay (runScenario, the server's engine) that gives the verdicts.
import { runScenario } from '../../../engine/scenario-run.js';
import type { Scenario, Step } from '../../../engine/scenario.js';

export interface Decision {
  subject: string;
  action: string;
  resource: string;
  allowed: boolean;
  /** The tuples from the subject towards the resource (the server's /evaluate `paths`); empty when denied. */
  path: string[];
  because: string;
}

const CHECK_AT = /^\$(?:\.steps\[(\d+)\])?\.checks\[(\d+)\]$/;
const NO_ASSERTIONS = { checks: [], listObjects: [], listSubjects: [], invalidTuples: [] };

/** The decision of the check at `at` (`$.checks[2]`, `$.steps[1].checks[0]`), or null when there is none there. */
export function decide(sc: Scenario, at: string): Decision | null {
  const m = CHECK_AT.exec(at);
  if (!m) return null;
  const step = m[1] === undefined ? -1 : Number(m[1]);
  const stage: Scenario | Step | undefined = step < 0 ? sc : sc.steps?.[step];
  const check = stage?.checks?.[Number(m[2])];
  if (!check) return null;
  // runScenario explains every unexpected allow: asked to expect a deny, it explains any allow. The stages after the
  // check's are left out, and so are the other assertions, which need not be decided again.
  const asked = { ...check, expect: false };
  const steps = (sc.steps ?? []).slice(0, step + 1).map((s, i) => ({ ...s, ...NO_ASSERTIONS, ...(i === step ? { checks: [asked] } : {}) }));
  const only: Scenario = { ...sc, ...NO_ASSERTIONS, ...(step < 0 ? { checks: [asked] } : {}), steps };
  const outcome = runScenario(only).outcomes.find((o) => o.kind === 'check' || o.kind === 'query');
  const base = { subject: check.subject, action: check.action, resource: check.resource };
  if (!outcome || outcome.kind === 'query') return { ...base, allowed: false, path: [], because: outcome?.message ?? 'not decided' };
  if (outcome.ok) return { ...base, allowed: false, path: [], because: `no path from ${check.subject} to ${check.action} on ${check.resource}` };
  const why = outcome.paths?.[0];
  return { ...base, allowed: true, path: why?.path ?? [], because: why?.because ?? '' };
}
