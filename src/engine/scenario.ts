// Scenario files (the conformance format: definitions, tuples, grants, assertions and steps): read with every problem
// named by its JSON path, split into stages, and written back. Pure, so the CLI, the tests and the browser share it.
import { schemaDefinition, type Definition } from './model.js';

export interface RawDefinition {
  name: string;
  schema?: boolean;
  relations?: Record<string, string[]>;
  permissions?: Record<string, string[]>;
}
export interface Check {
  subject: string;
  action: string;
  resource: string;
  expect: boolean;
}
export interface ListObjectsQuery {
  subject: string;
  action: string;
  type: string;
  expect: string[];
}
export interface ListSubjectsQuery {
  action: string;
  resource: string;
  subjectType: string;
  expect: string[];
}
export type InvalidTuple = string | { subject: unknown; relation: unknown; resource: unknown };
export type StepOp = 'init' | 'add' | 'delete' | 'define';
export interface Step {
  op: StepOp;
  definitions?: RawDefinition[];
  tuples?: string[];
  grants?: string[];
  invalidTuples?: InvalidTuple[];
  checks?: Check[];
  listObjects?: ListObjectsQuery[];
  listSubjects?: ListSubjectsQuery[];
}
export interface Scenario extends Omit<Step, 'op'> {
  name?: string;
  source?: string;
  description?: string;
  steps?: Step[];
}

/** A problem in a scenario file, at a JSON path like `$.steps[1].checks[0].expect`. */
export interface ScenarioProblem {
  at: string;
  message: string;
}

/** The scenario when its shape is right, else null; every problem either way (none when it is right). */
export interface ParsedScenario {
  scenario: Scenario | null;
  problems: ScenarioProblem[];
}

const OPS: readonly StepOp[] = ['add', 'delete', 'define'];
const STEP_FIELDS = ['definitions', 'tuples', 'grants', 'invalidTuples', 'checks', 'listObjects', 'listSubjects'];
const TOP_FIELDS = new Set(['name', 'source', 'description', 'steps', ...STEP_FIELDS]);

/** Nesting a scenario may have: its own is about 6 levels; far deeper is a hostile file (it would overflow the stack). */
export const MAX_DEPTH = 32;

/** Whether `v` nests deeper than `limit`; recursion stops at the limit, so a deep value cannot overflow the stack. */
function tooDeep(v: unknown, limit: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (limit === 0) return true;
  return Object.values(v).some((x) => tooDeep(x, limit - 1));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
/** A key in a JSON path: `.name`, or `["odd key"]`. */
const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/** Checks the shape of every field of a parsed JSON or YAML value. */
export function parseScenario(value: unknown): ParsedScenario {
  const problems: ScenarioProblem[] = [];
  const add = (at: string, message: string) => problems.push({ at, message });
  if (!isRecord(value)) return { scenario: null, problems: [{ at: '$', message: 'a scenario is an object (a mapping)' }] };
  if (tooDeep(value, MAX_DEPTH)) return { scenario: null, problems: [{ at: '$', message: `nested more than ${MAX_DEPTH} levels deep` }] };
  for (const k of ['name', 'source', 'description']) {
    if (value[k] !== undefined && typeof value[k] !== 'string') add(`$.${k}`, 'must be a string');
  }
  readFields(value, '$', TOP_FIELDS, add);
  if (value.steps !== undefined) {
    if (!Array.isArray(value.steps)) add('$.steps', 'must be an array of steps');
    else {
      value.steps.forEach((step: unknown, i) => {
        const at = `$.steps[${i}]`;
        if (!isRecord(step)) return add(at, 'must be an object with an op');
        if (!OPS.includes(step.op as StepOp)) add(`${at}.op`, `must be one of ${OPS.join(', ')}`);
        readFields(step, at, new Set(['op', ...STEP_FIELDS]), add);
      });
    }
  }
  return { scenario: problems.length ? null : value as Scenario, problems };
}

type Add = (path: string, message: string) => void;

function readFields(o: Record<string, unknown>, at: string, known: Set<string>, add: Add) {
  for (const k of Object.keys(o)) if (!known.has(k)) add(`${at}${key(k)}`, 'unknown field');
  const list = (field: string, each: (v: unknown, path: string) => void) => {
    if (o[field] === undefined) return;
    if (!Array.isArray(o[field])) return add(`${at}.${field}`, 'must be an array');
    (o[field] as unknown[]).forEach((v, i) => each(v, `${at}.${field}[${i}]`));
  };
  const fields = (v: unknown, path: string, strings: string[], extra: (r: Record<string, unknown>) => void) => {
    if (!isRecord(v)) return add(path, `must be an object with ${strings.join(', ')}`);
    for (const f of strings) if (typeof v[f] !== 'string') add(`${path}.${f}`, 'must be a string');
    extra(v);
  };
  // A malformed tuple string is read: the service refuses writing it, and running the scenario says so there.
  const tuple = (v: unknown, path: string) => {
    if (typeof v !== 'string') add(path, 'must be a tuple string Type:id#relation@Type:id');
  };
  list('definitions', (v, path) => {
    if (!isRecord(v)) return add(path, 'must be an object with a name');
    if (typeof v.name !== 'string') add(`${path}.name`, 'must be a string');
    if (v.schema !== undefined && typeof v.schema !== 'boolean') add(`${path}.schema`, 'must be true or false');
    for (const part of ['relations', 'permissions']) {
      const map = v[part];
      if (map === undefined) continue;
      if (!isRecord(map)) add(`${path}.${part}`, 'must be an object of name: [entries]');
      else for (const [k, entries] of Object.entries(map)) if (!isStrings(entries)) add(`${path}.${part}${key(k)}`, 'must be an array of strings');
    }
  });
  list('tuples', tuple);
  list('grants', tuple);
  list('invalidTuples', (v, path) => {
    if (typeof v !== 'string' && !isRecord(v)) add(path, 'must be a tuple string or an object with subject, relation, resource');
  });
  const expectIds = (r: Record<string, unknown>, path: string) => {
    if (!isStrings(r.expect)) add(`${path}.expect`, 'must be an array of ids');
  };
  list('checks', (v, path) =>
    fields(v, path, ['subject', 'action', 'resource'], (r) => {
      if (typeof r.expect !== 'boolean') add(`${path}.expect`, 'must be true or false');
    }));
  list('listObjects', (v, path) => fields(v, path, ['subject', 'action', 'type'], (r) => expectIds(r, path)));
  list('listSubjects', (v, path) => fields(v, path, ['action', 'resource', 'subjectType'], (r) => expectIds(r, path)));
}

export const expandDefinition = (
  d: RawDefinition,
): Definition => (d.schema ? schemaDefinition(d.name) : { name: d.name, relations: d.relations ?? {}, permissions: d.permissions ?? {} });

/**
 * One mutation point of a scenario, its lists filled in: the initial content (`at` = `$`), then each step
 * (`$.steps[i]`); `at` prefixes the path of each entry, as in `$.steps[1].checks[0]`.
 */
export interface Stage {
  at: string;
  op: StepOp;
  definitions: RawDefinition[];
  tuples: string[];
  grants: string[];
  invalidTuples: InvalidTuple[];
  checks: Check[];
  listObjects: ListObjectsQuery[];
  listSubjects: ListSubjectsQuery[];
}

/** The initial content as the first stage (`init`), then the steps; a step's definitions count only for `define`. */
export function stagesOf(sc: Scenario): Stage[] {
  const stage = (at: string, s: Step): Stage => ({
    at,
    op: s.op,
    definitions: s.op === 'init' || s.op === 'define' ? s.definitions ?? [] : [],
    tuples: s.op === 'define' ? [] : s.tuples ?? [],
    grants: s.op === 'define' ? [] : s.grants ?? [],
    invalidTuples: s.invalidTuples ?? [],
    checks: s.checks ?? [],
    listObjects: s.listObjects ?? [],
    listSubjects: s.listSubjects ?? [],
  });
  return [stage('$', { ...sc, op: 'init' }), ...(sc.steps ?? []).map((s, i) => stage(`$.steps[${i}]`, s))];
}

/** JSON with short arrays and objects kept on one line, as the project's scenario files are written (undefined fields left out, as JSON.stringify does). */
export function formatScenario(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (flat === undefined || flat.length + indent.length <= 110 || value === null || typeof value !== 'object') return flat ?? 'null';
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((v) => inner + formatScenario(v, inner))
    : Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatScenario(v, inner)}`);
  return Array.isArray(value) ? `[\n${items.join(',\n')}\n${indent}]` : `{\n${items.join(',\n')}\n${indent}}`;
}
