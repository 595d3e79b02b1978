// Scenario files (the conformance format: definitions, tuples, grants, assertions and steps): read with every problem
// named by its place, split into stages, and written back. Pure, so the CLI, the tests and the browser share it.
import { parseTupleText } from './ids.js';
import { schemaDefinition, type Definition } from './model.js';

export interface RawDefinition { name: string; schema?: boolean; relations?: Record<string, string[]>; permissions?: Record<string, string[]> }
export interface Check { subject: string; action: string; resource: string; expect: boolean }
export interface ListObjectsQuery { subject: string; action: string; type: string; expect: string[] }
export interface ListSubjectsQuery { action: string; resource: string; subjectType: string; expect: string[] }
export type InvalidTuple = string | { subject: unknown; relation: unknown; resource: unknown };
export type StepOp = 'init' | 'add' | 'delete' | 'define';
export interface Step {
  op: StepOp;
  definitions?: RawDefinition[]; tuples?: string[]; grants?: string[]; invalidTuples?: InvalidTuple[];
  checks?: Check[]; listObjects?: ListObjectsQuery[]; listSubjects?: ListSubjectsQuery[];
}
export interface Scenario extends Omit<Step, 'op'> { name?: string; source?: string; description?: string; steps?: Step[] }

/** A problem in a scenario file, at a path like `steps[1].checks[0].expect`. */
export interface ScenarioProblem { path: string; message: string }

export class ScenarioError extends Error {
  constructor(readonly problems: ScenarioProblem[]) {
    super(problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('\n'));
    this.name = 'ScenarioError';
  }
}

const OPS: readonly StepOp[] = ['add', 'delete', 'define'];
const STEP_FIELDS = ['definitions', 'tuples', 'grants', 'invalidTuples', 'checks', 'listObjects', 'listSubjects'];
const TOP_FIELDS = new Set(['name', 'source', 'description', 'steps', ...STEP_FIELDS]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Checks the shape of every field; the value is returned typed when nothing is wrong, else ScenarioError lists all. */
export function readScenario(value: unknown): Scenario {
  const problems: ScenarioProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  if (!isRecord(value)) throw new ScenarioError([{ path: '', message: 'a scenario is a JSON object' }]);
  for (const key of ['name', 'source', 'description']) {
    if (value[key] !== undefined && typeof value[key] !== 'string') add(key, 'must be a string');
  }
  readFields(value, '', TOP_FIELDS, add);
  if (value.steps !== undefined) {
    if (!Array.isArray(value.steps)) add('steps', 'must be an array of steps');
    else {
      value.steps.forEach((step: unknown, i) => {
        const at = `steps[${i}]`;
        if (!isRecord(step)) return add(at, 'must be an object with an op');
        if (!OPS.includes(step.op as StepOp)) add(`${at}.op`, `must be one of ${OPS.join(', ')}`);
        readFields(step, `${at}.`, new Set(['op', ...STEP_FIELDS]), add);
      });
    }
  }
  if (problems.length) throw new ScenarioError(problems);
  return value as Scenario;
}

/** Reads JSON text; a syntax error is a problem like any other. */
export function parseScenario(text: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ScenarioError([{ path: '', message: `not JSON: ${(e as Error).message}` }]);
  }
  return readScenario(value);
}

type Add = (path: string, message: string) => void;

function readFields(o: Record<string, unknown>, at: string, known: Set<string>, add: Add) {
  for (const key of Object.keys(o)) if (!known.has(key)) add(`${at}${key}`, 'unknown field');
  const list = (key: string, each: (v: unknown, path: string) => void) => {
    if (o[key] === undefined) return;
    if (!Array.isArray(o[key])) return add(`${at}${key}`, 'must be an array');
    (o[key] as unknown[]).forEach((v, i) => each(v, `${at}${key}[${i}]`));
  };
  const fields = (v: unknown, path: string, strings: string[], extra: (r: Record<string, unknown>) => void) => {
    if (!isRecord(v)) return add(path, `must be an object with ${strings.join(', ')}`);
    for (const f of strings) if (typeof v[f] !== 'string') add(`${path}.${f}`, 'must be a string');
    extra(v);
  };
  const tuple = (v: unknown, path: string) => {
    if (typeof v !== 'string') add(path, 'must be a tuple string Type:id#relation@Type:id');
    else if (!parseTupleText(v)) add(path, `malformed tuple ${JSON.stringify(v)}: expected Type:id#relation@Type:id`);
  };
  list('definitions', (v, path) => {
    if (!isRecord(v)) return add(path, 'must be an object with a name');
    if (typeof v.name !== 'string') add(`${path}.name`, 'must be a string');
    if (v.schema !== undefined && typeof v.schema !== 'boolean') add(`${path}.schema`, 'must be true or false');
    for (const part of ['relations', 'permissions']) {
      const map = v[part];
      if (map === undefined) continue;
      if (!isRecord(map)) add(`${path}.${part}`, 'must be an object of name: [entries]');
      else for (const [k, entries] of Object.entries(map)) if (!isStrings(entries)) add(`${path}.${part}.${k}`, 'must be an array of strings');
    }
  });
  list('tuples', tuple);
  list('grants', tuple);
  list('invalidTuples', (v, path) => {
    if (typeof v !== 'string' && !isRecord(v)) add(path, 'must be a tuple string or an object with subject, relation, resource');
  });
  const expectIds = (r: Record<string, unknown>, path: string) => { if (!isStrings(r.expect)) add(`${path}.expect`, 'must be an array of ids'); };
  list('checks', (v, path) => fields(v, path, ['subject', 'action', 'resource'], (r) => {
    if (typeof r.expect !== 'boolean') add(`${path}.expect`, 'must be true or false');
  }));
  list('listObjects', (v, path) => fields(v, path, ['subject', 'action', 'type'], (r) => expectIds(r, path)));
  list('listSubjects', (v, path) => fields(v, path, ['action', 'resource', 'subjectType'], (r) => expectIds(r, path)));
}

export const expandDefinition = (d: RawDefinition): Definition =>
  (d.schema ? schemaDefinition(d.name) : { name: d.name, relations: d.relations ?? {}, permissions: d.permissions ?? {} });

/**
 * One mutation point of a scenario, its lists filled in: the initial content (`at` = `$`), then each step
 * (`$.steps[i]`); `at` prefixes the path of each entry, as in `$.steps[1].checks[0]`.
 */
export interface Stage {
  at: string; op: StepOp;
  definitions: RawDefinition[]; tuples: string[]; grants: string[]; invalidTuples: InvalidTuple[];
  checks: Check[]; listObjects: ListObjectsQuery[]; listSubjects: ListSubjectsQuery[];
}

/** The initial content as the first stage (`init`), then the steps; a step's definitions count only for `define`. */
export function stagesOf(sc: Scenario): Stage[] {
  const stage = (at: string, s: Step): Stage => ({
    at, op: s.op, definitions: s.op === 'init' || s.op === 'define' ? s.definitions ?? [] : [],
    tuples: s.op === 'define' ? [] : s.tuples ?? [], grants: s.op === 'define' ? [] : s.grants ?? [],
    invalidTuples: s.invalidTuples ?? [], checks: s.checks ?? [], listObjects: s.listObjects ?? [], listSubjects: s.listSubjects ?? [],
  });
  return [stage('$', { ...sc, op: 'init' }), ...(sc.steps ?? []).map((s, i) => stage(`$.steps[${i}]`, s))];
}

/** JSON with short arrays and objects kept on one line, as the project's scenario files are written. */
export function formatScenario(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (flat === undefined || flat.length + indent.length <= 110 || value === null || typeof value !== 'object') return flat ?? 'null';
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((v) => inner + formatScenario(v, inner))
    : Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatScenario(v, inner)}`);
  return Array.isArray(value) ? `[\n${items.join(',\n')}\n${indent}]` : `{\n${items.join(',\n')}\n${indent}}`;
}
