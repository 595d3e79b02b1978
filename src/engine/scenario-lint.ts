// Problems in a scenario besides its verdicts: what the server refuses, and assertions naming types or actions that do not exist.
import { BUILTIN_NAMES, Model, validateDefinition, type Definition } from './model.js';
import { typeOf, parseObject } from './ids.js';
import { expandDefinition, stagesOf, type Scenario } from './scenario.js';
import { runScenario, stageModel } from './scenario-run.js';
import { deadArrows } from './arrow-targets.js';
import { hint } from './did-you-mean.js';

export interface LintProblem {
  /** error: the server refuses it, or the assertion cannot pass; warning: legal, but probably not what was meant. */
  severity: 'error' | 'warning';
  at: string;
  message: string;
}

export function lintScenario(sc: Scenario): LintProblem[] {
  const problems: LintProblem[] = [];
  const add = (severity: LintProblem['severity'], at: string, message: string) => problems.push({ severity, at, message });
  const stages = stagesOf(sc);
  const everDefined = new Set([...BUILTIN_NAMES, ...stages.flatMap((s) => s.definitions.map((d) => d.name))]);

  // What the server refuses: definitions, writes, deletes, malformed queries, invalidTuples it would store.
  for (const o of runScenario(sc).outcomes) {
    if (o.ok || o.kind === 'check' || o.kind === 'listObjects' || o.kind === 'listSubjects') continue;
    if (o.kind === 'invalidTuple') add('error', o.at, `${o.what}: listed as invalid, but the server would store it`);
    else add('error', o.at, `${o.what}: ${o.message}`);
  }

  const defs = new Map<string, Definition>();
  for (const stage of stages) {
    const named = new Set<string>();
    const after = stageModel(defs, stage);
    for (const [i, raw] of stage.definitions.entries()) {
      const def = expandDefinition(raw);
      const at = `${stage.at}.definitions[${i}]`;
      if (named.has(def.name)) add('warning', at, `${def.name} is defined twice in one step: which one holds depends on the order of the writes`);
      named.add(def.name);
      if (validateDefinition(def).length) continue; // reported above
      // A slip refuses the definition (reported above); another dead arrow is stored but never grants.
      const dead = deadArrows(def, after);
      if (dead.some((d) => d.refused)) continue;
      defs.set(def.name, def);
      for (const d of dead) add('warning', `${at}.${d.path}`, `${d.message}: it never grants anything`);
      for (const [rel, allowed] of Object.entries(def.relations)) {
        for (const t of allowed) {
          if (t !== '*' && !everDefined.has(t)) {
            add('warning', `${at}.relations.${rel}`, `subject type ${t} is not defined in this file${hint(t, everDefined)}`);
          }
        }
      }
    }
    const model = new Model(defs.values());
    /**
     * An assertion naming a type or action that does not exist: an error when it expects an allow it can never get
     * (self-access aside), a warning when it expects a deny (a test that a removed relation grants nothing is fine).
     */
    const action = (at: string, type: string, name: string, expectsSome: boolean) => {
      const severity = expectsSome ? 'error' : 'warning';
      if (!model.get(type)) {
        add(severity, at, `type ${type} is not defined here${hint(type, model.types.keys())}`);
        return;
      }
      const actions = model.actionsOf(type);
      if (!actions.includes(name)) add(severity, at, `${type} has no relation or permission ${name}${hint(name, actions)}`);
    };
    const subjectType = (at: string, type: string) => {
      if (!everDefined.has(type)) add('warning', at, `subject type ${type} is not defined in this file${hint(type, everDefined)}`);
    };
    for (const [i, c] of stage.checks.entries()) {
      const at = `${stage.at}.checks[${i}]`;
      if (!parseObject(c.subject) || !parseObject(c.resource)) continue; // reported above
      action(at, typeOf(c.resource), c.action, c.expect && c.subject !== c.resource);
      subjectType(`${at}.subject`, typeOf(c.subject));
    }
    for (const [i, q] of stage.listObjects.entries()) {
      const at = `${stage.at}.listObjects[${i}]`;
      if (!parseObject(q.subject)) continue;
      action(at, q.type, q.action, q.expect.some((id) => `${q.type}:${id}` !== q.subject));
      subjectType(`${at}.subject`, typeOf(q.subject));
    }
    for (const [i, q] of stage.listSubjects.entries()) {
      const at = `${stage.at}.listSubjects[${i}]`;
      if (!parseObject(q.resource)) continue;
      action(at, typeOf(q.resource), q.action, q.expect.some((id) => `${q.subjectType}:${id}` !== q.resource));
      subjectType(`${at}.subjectType`, q.subjectType);
    }
  }
  return problems;
}
