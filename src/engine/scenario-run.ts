// Runs a scenario with the engine the server uses (Model, Evaluator): the writes it would accept, then every assertion.
import { Evaluator } from './evaluator.js';
import { isWellFormed, NAME_RE, parseObject, parseTupleText, tupleText, type Tuple } from './ids.js';
import { arrowTargetProblems } from './arrow-targets.js';
import { Model, validateDefinition, type Definition } from './model.js';
import { expandDefinition, stagesOf, type InvalidTuple, type Scenario, type Stage } from './scenario.js';

export type OutcomeKind = 'check' | 'listObjects' | 'listSubjects' | 'invalidTuple' | 'define' | 'write' | 'delete' | 'query';

/** One assertion's verdict, or a write the server would refuse (always a failure). */
export interface Outcome {
  ok: boolean;
  kind: OutcomeKind;
  /** JSON path of the entry in the file: `$.steps[1].checks[0]`. */
  at: string;
  /** The assertion in words: `can(User:a, read, Doc:1)`. */
  what: string;
  expected?: unknown;
  actual?: unknown;
  /** Why a failure failed, when expected/actual do not say it. */
  message?: string;
  /**
   * For an unexpected allow: the stored tuples, from the subject towards the resource, that grant it (the server's
   * /evaluate `paths`); per extra object or subject for a list. Empty: public or self-access, as `because` says.
   */
  paths?: Array<{ object: string; path: string[]; because: string }>;
}

export interface ScenarioResult {
  passed: number;
  failed: number;
  outcomes: Outcome[];
}

export interface RunOptions {
  /** Reorders each stage's definitions and writes (the server's answers must not depend on the order). */
  order?: <T>(items: readonly T[]) => T[];
}

/** `relations.x-y` (a validateDefinition path) as a JSON path suffix: `.relations["x-y"]`. */
const pathOf = (path: string) =>
  path.split(/\.(.*)/s).filter(Boolean)
    .map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('');
const same = <T>(items: readonly T[]) => [...items];
const bare = (o: string) => o.slice(o.indexOf(':') + 1);
const sortedEqual = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** Why `ev` allows, as the server's /evaluate explains it; `object` names the list entry it is for. */
function explain(ev: Evaluator, subject: string, action: string, resource: string, object = resource) {
  const path = ev.explain(subject, action, resource) ?? [];
  const because = subject === resource ? 'self-access: the subject is the resource'
    : path.length === 0 ? `public: ${action} on ${resource} admits everyone (*)` : path.join(' -> ');
  return { object, path, because };
}

/** Which query parameters the server's routes refuse (400) before deciding anything. */
function queryProblem(objects: string[], names: string[]): string | null {
  for (const o of objects) if (!parseObject(o)) return `${JSON.stringify(o)} is not Type:id; the server refuses the query`;
  for (const n of names) if (!NAME_RE.test(n)) return `${JSON.stringify(n)} is not a name; the server refuses the query`;
  return null;
}

/** Why the server refuses writing this invalidTuples entry, or null when it would store it. */
function refusal(bad: InvalidTuple, model: Model): string | null {
  const t: unknown = typeof bad === 'string' ? parseTupleText(bad) : bad;
  if (!t) return 'malformed tuple';
  const { subject, relation, resource } = t as Record<string, unknown>;
  if (typeof subject !== 'string' || typeof relation !== 'string' || typeof resource !== 'string') return 'parts must be strings';
  const tuple = { subject, relation, resource };
  if (!isWellFormed(tuple)) return 'malformed tuple';
  return model.writeProblem(tuple)?.code ?? null;
}

export function runScenario(sc: Scenario, opts: RunOptions = {}): ScenarioResult {
  const order = opts.order ?? same;
  const outcomes: Outcome[] = [];
  const note = (o: Outcome) => outcomes.push(o);
  const defs = new Map<string, Definition>();
  // What the server stores: accepted writes, whether or not a later definition still counts them.
  const tuples = new Map<string, Tuple>();
  const grants = new Map<string, Tuple>();

  for (const stage of stagesOf(sc)) {
    // Arrows are judged against the model after the whole step (as a state import judges them), so a step that fixes
    // a name and an arrow to it together passes in every order.
    const after = stageModel(defs, stage);
    for (const i of order(stage.definitions.map((_, i) => i))) {
      const def = expandDefinition(stage.definitions[i]!);
      const own = validateDefinition(def);
      const problems = own.length ? own : arrowTargetProblems(def, after);
      // Each problem at its own place (`….permissions.read`); the server refuses the whole definition.
      for (const p of problems) {
        note({ ok: false, kind: 'define', at: `${stage.at}.definitions[${i}]${pathOf(p.path)}`, what: `define ${def.name}`,
          message: `the server refuses it (INVALID_DEFINITION): ${p.message}` });
      }
      if (!problems.length) defs.set(def.name, def);
    }
    const model = new Model(defs.values());
    applyWrites(stage, model, order, tuples, grants, note);

    for (const [i, bad] of stage.invalidTuples.entries()) {
      const why = refusal(bad, model);
      note({ ok: why !== null, kind: 'invalidTuple', at: `${stage.at}.invalidTuples[${i}]`, what: `refuse ${JSON.stringify(bad)}`, expected: 'refused',
        actual: why === null ? 'stored' : `refused (${why})` });
    }

    const ev = new Evaluator(model, tuples.values(), grants.values());
    for (const [i, c] of stage.checks.entries()) {
      const at = `${stage.at}.checks[${i}]`;
      const what = `can(${c.subject}, ${c.action}, ${c.resource})`;
      const bad = queryProblem([c.subject, c.resource], [c.action]);
      if (bad) {
        note({ ok: false, kind: 'query', at, what, message: bad });
        continue;
      }
      const got = ev.can(c.subject, c.action, c.resource);
      note({ ok: got === c.expect, kind: 'check', at, what, expected: c.expect ? 'allow' : 'deny', actual: got ? 'allow' : 'deny',
        ...(got && !c.expect ? { paths: [explain(ev, c.subject, c.action, c.resource)] } : {}) });
    }
    for (const [i, q] of stage.listObjects.entries()) {
      const at = `${stage.at}.listObjects[${i}]`;
      const what = `listObjects(${q.subject}, ${q.action}, ${q.type})`;
      const bad = queryProblem([q.subject], [q.action, q.type]);
      if (bad) {
        note({ ok: false, kind: 'query', at, what, message: bad });
        continue;
      }
      const got = ev.listObjects(q.subject, q.action, q.type).map(bare);
      const extra = got.filter((id) => !q.expect.includes(id));
      note({ ok: sortedEqual(got, q.expect), kind: 'listObjects', at, what, expected: [...q.expect].sort(), actual: got, ...(extra.length ? { paths: extra.map((id) =>
        explain(ev, q.subject, q.action, `${q.type}:${id}`)
      ) } : {}) });
    }
    for (const [i, q] of stage.listSubjects.entries()) {
      const at = `${stage.at}.listSubjects[${i}]`;
      const what = `listSubjects(${q.action}, ${q.resource}, ${q.subjectType})`;
      const bad = queryProblem([q.resource], [q.action, q.subjectType]);
      if (bad) {
        note({ ok: false, kind: 'query', at, what, message: bad });
        continue;
      }
      const got = ev.listSubjects(q.action, q.resource, q.subjectType).subjects.map(bare);
      const extra = got.filter((id) => !q.expect.includes(id));
      note({ ok: sortedEqual(got, q.expect), kind: 'listSubjects', at, what, expected: [...q.expect].sort(), actual: got, ...(extra.length ? { paths: extra.map((id) =>
        explain(ev, `${q.subjectType}:${id}`, q.action, q.resource, `${q.subjectType}:${id}`)
      ) } : {}) });
    }
  }
  const failed = outcomes.filter((o) => !o.ok).length;
  return { passed: outcomes.length - failed, failed, outcomes };
}

/** The model once a step's definitions are stored (those its own checks refuse left out), whatever their order. */
export function stageModel(defs: ReadonlyMap<string, Definition>, stage: Stage): Model {
  const after = new Map(defs);
  for (const raw of stage.definitions) {
    const def = expandDefinition(raw);
    if (!validateDefinition(def).length) after.set(def.name, def);
  }
  return new Model(after.values());
}

/** A stage's tuple and grant writes as the server takes them: validated against the model in force, deletes of stored ones only. */
function applyWrites(stage: Stage, model: Model, order: NonNullable<RunOptions['order']>, tuples: Map<string, Tuple>, grants: Map<string, Tuple>, note: (o: Outcome) => void) {
  const writes = [
    ...stage.tuples.map((text, i) => ({ text, grant: false, at: `${stage.at}.tuples[${i}]` })),
    ...stage.grants.map((text, i) => ({ text, grant: true, at: `${stage.at}.grants[${i}]` })),
  ];
  const remove = stage.op === 'delete';
  for (const w of order(writes)) {
    const t = parseTupleText(w.text);
    const kind = remove ? 'delete' : 'write';
    const what = `${remove ? (w.grant ? 'revoke' : 'delete') : (w.grant ? 'grant' : 'write')} ${w.text}`;
    if (!t) {
      note({ ok: false, kind, at: w.at, what, message: 'malformed tuple: expected Subject:id#relation@Resource:id' });
      continue;
    }
    const into = w.grant ? grants : tuples;
    const key = tupleText(t);
    if (remove) {
      if (!into.delete(key)) note({ ok: false, kind, at: w.at, what, message: `not stored, the server answers 404 NOT_FOUND` });
      continue;
    }
    const problem = w.grant ? model.grantProblem(t) : model.writeProblem(t);
    if (problem) note({ ok: false, kind, at: w.at, what, message: `the server refuses it (${problem.code}): ${problem.message}` });
    else into.set(key, t);
  }
}
