// Custom endpoints of the database module: a definition's shape and its compilation against a schema (pure).
import { z } from 'zod';
import { NAME_RE } from './ids.js';
import { checkDocument, fieldOf, type FieldType, type Fields, type Problem } from './schema-fields.js';

export const OPERATIONS = ['find', 'create', 'update', 'delete'] as const;
export const INPUT_TYPES = ['String', 'Number', 'Boolean', 'Date', 'ObjectId'] as const;
export const SOURCES = ['body', 'query', 'path'] as const;
export const FILTER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export type Operation = (typeof OPERATIONS)[number];
export type InputType = (typeof INPUT_TYPES)[number];
export type Op = (typeof FILTER_OPS)[number];

/** Bounds of one definition (its JSON is bounded by the routes' body limit too). */
export const LIMITS = { inputs: 32, filter: 32, assign: 64, name: 64, description: 500 } as const;
/** Input names the paging of a find takes from the query itself. */
export const PAGING = ['skip', 'limit'] as const;

const IDENT = /^[A-Za-z][A-Za-z0-9_]*$/;
const bounded = <T extends z.ZodType>(value: T, max: number, what: string) =>
  z.record(z.string().max(64), value).refine((o) => Object.keys(o).length <= max, { message: `at most ${max} ${what}` });

export const inputSpec = z.strictObject({ type: z.enum(INPUT_TYPES), required: z.boolean().optional(), from: z.enum(SOURCES) });
export type InputSpec = z.infer<typeof inputSpec>;

/** The parts of a definition every write of it may set (create takes the name too); terms are checked by `compile`. */
export const definitionParts = {
  description: z.string().max(LIMITS.description),
  operation: z.enum(OPERATIONS),
  schema: z.string().regex(NAME_RE, 'not a schema name'),
  inputs: bounded(inputSpec, LIMITS.inputs, 'inputs'),
  filter: bounded(z.unknown(), LIMITS.filter, 'filter terms'),
  assign: bounded(z.unknown(), LIMITS.assign, 'assignments'),
  scope: z.unknown(),
  auth: z.enum(['token', 'none']),
  paged: z.boolean(),
  sort: z.string().regex(/^-?[A-Za-z_][A-Za-z0-9_]*$/, 'a field name, -field for descending').max(130),
};
export const endpointName = z.string().max(LIMITS.name).regex(NAME_RE, 'letters, digits and _, starting with a letter');

export interface EndpointDefinition {
  name: string;
  description?: string;
  operation: Operation;
  schema: string;
  inputs: Record<string, InputSpec>;
  filter: Record<string, unknown>;
  assign: Record<string, unknown>;
  scope?: unknown;
  auth: 'token' | 'none';
  paged?: boolean;
  sort?: string;
}

/** Where a value comes from: a caller's input, the caller's user id, or a constant of the definition. */
export type Source = { kind: 'input'; name: string } | { kind: 'caller' } | { kind: 'value'; value: unknown };
export interface Term {
  field: string;
  op: Op;
  from: Source;
}
export interface Plan {
  filter: Term[];
  assign: Array<{ field: string; from: Source }>;
  scope?: Source;
  sort?: string;
  paged: boolean;
}
/** What compile needs of the schema. */
export interface SchemaView {
  name: string;
  fields: Fields;
  guarded: boolean;
}

/** Fields every document has besides the schema's, usable in filters and sorts (never assigned). */
const BUILT_IN: Record<string, FieldType> = { _id: 'ObjectId', createdAt: 'Date', updatedAt: 'Date' };
/** Which input types a field of each type takes (ids are strings). */
const TAKES: Record<FieldType, readonly InputType[]> = {
  String: ['String'],
  Number: ['Number'],
  Boolean: ['Boolean'],
  Date: ['Date'],
  ObjectId: ['ObjectId', 'String'],
  Relation: ['ObjectId', 'String'],
  JSON: INPUT_TYPES,
};
const CALLER_FITS: ReadonlySet<FieldType> = new Set(['String', 'ObjectId', 'Relation', 'JSON']);
const ORDERED: ReadonlySet<FieldType> = new Set(['String', 'Number', 'Date']);

/** What the checks of one compilation share: the definition, its schema, the problems found and the inputs used. */
interface Compilation {
  def: EndpointDefinition;
  schema: SchemaView;
  problems: Problem[];
  used: Set<string>;
  isFind: boolean;
}

/**
 * Checks a definition against its schema as it is now: every field, input and reference must exist and fit. Run when
 * a definition is saved and again at each call (a schema may have lost a field since); problems name their path.
 */
export function compile(def: EndpointDefinition, schema: SchemaView): { plan: Plan; problems: Problem[] } {
  const c: Compilation = { def, schema, problems: [], used: new Set<string>(), isFind: def.operation === 'find' };
  checkInputs(c);
  const filter = compileFilter(c);
  const assign = compileAssign(c);
  const scope = compileScope(c);
  checkSortAndPaging(c);
  checkOperation(c, assign);
  for (const name of Object.keys(def.inputs)) if (!c.used.has(name)) c.problems.push({ path: `inputs.${name}`, message: 'not used by the filter, assign or scope' });
  checkAuth(c, filter, scope);
  return { plan: { filter, assign, scope, sort: def.sort, paged: c.isFind && def.paged !== false }, problems: c.problems };
}

const typeOf = (c: Compilation, field: string, assigning: boolean): FieldType | undefined =>
  fieldOf(c.schema.fields, field)?.type ?? (assigning ? undefined : (Object.hasOwn(BUILT_IN, field) ? BUILT_IN[field] : undefined));

/** Input names, paging names and path inputs. */
function checkInputs({ def, problems, isFind }: Compilation): void {
  for (const [name, spec] of Object.entries(def.inputs)) {
    if (!IDENT.test(name)) problems.push({ path: `inputs.${name}`, message: 'an input name is letters, digits and _, starting with a letter' });
    if (isFind && def.paged !== false && (PAGING as readonly string[]).includes(name)) problems.push({ path: `inputs.${name}`, message: `${name} is the paging of a paged find` });
    if (spec.from === 'path' && spec.required !== true) problems.push({ path: `inputs.${name}.required`, message: 'a path input is required' });
  }
  const pathInputs = Object.entries(def.inputs).filter(([, s]) => s.from === 'path');
  if (pathInputs.length > 1) problems.push({ path: 'inputs', message: 'at most one input comes from the path (/database/function/<name>/<value>)' });
}

/** A reference `{input}` or `{caller: 'id'}`, checked against the field's type. */
function reference(c: Compilation, raw: object, at: string, fieldType: FieldType | undefined, field: string | undefined): Source | null {
  const { def, problems } = c;
  if (Array.isArray(raw)) {
    problems.push({ path: at, message: 'a value is {input}, {caller: "id"} or a constant (no arrays)' });
    return null;
  }
  const o = raw as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && keys[0] === 'input' && typeof o.input === 'string') {
    const spec = Object.hasOwn(def.inputs, o.input) ? def.inputs[o.input] : undefined;
    if (!spec) {
      problems.push({ path: at, message: `no input ${o.input}` });
      return null;
    }
    c.used.add(o.input);
    if (fieldType && !TAKES[fieldType].includes(spec.type)) {
      problems.push({ path: at, message: `input ${o.input} is a ${spec.type}; ${field ?? at} takes ${TAKES[fieldType].join(' or ')}` });
    }
    return { kind: 'input', name: o.input };
  }
  if (keys.length === 1 && keys[0] === 'caller' && o.caller === 'id') {
    if (fieldType && !CALLER_FITS.has(fieldType)) problems.push({ path: at, message: `the caller's id is a string; ${field ?? at} is a ${fieldType}` });
    return { kind: 'caller' };
  }
  problems.push({ path: at, message: 'a value is {input: <name>}, {caller: "id"} or a constant' });
  return null;
}

/** A value reference: `{input}`, `{caller: 'id'}` or a constant, checked against the field's type. */
function source(c: Compilation, raw: unknown, at: string, fieldType: FieldType | undefined, field: string | undefined): Source | null {
  const { problems } = c;
  if (raw !== null && typeof raw === 'object') return reference(c, raw, at, fieldType, field);
  if (typeof raw === 'string' && raw.length > 1000) {
    problems.push({ path: at, message: 'a constant string is at most 1000 characters' });
    return null;
  }
  if (field === undefined || fieldType === undefined) return { kind: 'value', value: raw };
  if (Object.hasOwn(BUILT_IN, field)) {
    const ok = raw === null || (typeof raw === 'string' && (field === '_id' ? raw.length > 0 && raw.length <= 200 : !Number.isNaN(Date.parse(raw))));
    if (!ok) {
      problems.push({ path: at, message: `not a value of ${field}` });
      return null;
    }
    return { kind: 'value', value: typeof raw === 'string' && field !== '_id' ? new Date(raw).toISOString() : raw };
  }
  const checked = checkDocument({ [field]: { ...c.schema.fields[field]!, required: false } }, { [field]: raw }, 'patch');
  if (checked.problems.length) {
    problems.push({ path: at, message: checked.problems[0]!.message });
    return null;
  }
  return { kind: 'value', value: checked.doc[field] };
}

function compileFilter(c: Compilation): Term[] {
  const { def, schema, problems } = c;
  const filter: Term[] = [];
  for (const [field, raw] of Object.entries(def.filter)) {
    const at = `filter.${field}`;
    const type = typeOf(c, field, false);
    if (!type) {
      problems.push({ path: at, message: `${schema.name} has no field ${field}` });
      continue;
    }
    if (type === 'JSON') {
      problems.push({ path: at, message: `${field} is JSON, which a filter cannot compare` });
      continue;
    }
    let op: Op = 'eq';
    let ref = raw;
    const keys = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? Object.keys(raw) : [];
    if (keys.length === 1 && (FILTER_OPS as readonly string[]).includes(keys[0]!)) {
      op = keys[0] as Op;
      ref = (raw as Record<string, unknown>)[op];
      if (op !== 'eq' && op !== 'ne' && !ORDERED.has(type)) problems.push({ path: at, message: `${op} compares String, Number or Date fields; ${field} is a ${type}` });
    }
    const from = source(c, ref, keys.length === 1 && op === keys[0] ? `${at}.${op}` : at, type, field);
    if (!from) continue;
    if (from.kind === 'input' && !c.isFind && def.inputs[from.name]!.required !== true) {
      problems.push({ path: at, message: `input ${from.name} must be required: an ${def.operation} without it would match more than meant` });
    }
    filter.push({ field, op, from });
  }
  return filter;
}

function compileAssign(c: Compilation): Plan['assign'] {
  const assign: Plan['assign'] = [];
  for (const [field, raw] of Object.entries(c.def.assign)) {
    const at = `assign.${field}`;
    const type = typeOf(c, field, true);
    if (!type) {
      c.problems.push({ path: at, message: `${c.schema.name} has no field ${field} to assign` });
      continue;
    }
    const from = source(c, raw, at, type, field);
    if (from) assign.push({ field, from });
  }
  return assign;
}

function compileScope(c: Compilation): Source | undefined {
  const { def, problems } = c;
  if (def.scope === undefined) return undefined;
  if (def.operation !== 'find' && def.operation !== 'create') problems.push({ path: 'scope', message: 'only a find or a create acts for a scope' });
  // A scope is no field: a constant is checked as a team below, an input must be a String.
  const from = source(c, def.scope, 'scope', 'String', undefined);
  if (from?.kind === 'caller') problems.push({ path: 'scope', message: 'a scope is a team (Team:<id>), from an input or a constant' });
  else if (from?.kind === 'value' && !(typeof from.value === 'string' && /^Team:[^\s#@]+$/.test(from.value))) {
    problems.push({ path: 'scope', message: 'a scope is a team: Team:<id>' });
  }
  return from ?? undefined;
}

function checkSortAndPaging(c: Compilation): void {
  const { def, schema, problems, isFind } = c;
  if (def.sort !== undefined) {
    const field = def.sort.replace(/^-/, '');
    const type = typeOf(c, field, false);
    if (!isFind) problems.push({ path: 'sort', message: 'only a find sorts' });
    else if (!type || type === 'JSON') problems.push({ path: 'sort', message: `${schema.name} has no field ${field} to sort by` });
  }
  if (def.paged !== undefined && !isFind) problems.push({ path: 'paged', message: 'only a find is paged' });
}

/** What each operation needs: a filter, assignments, the schema's required fields. */
function checkOperation({ def, schema, problems }: Compilation, assign: Plan['assign']): void {
  switch (def.operation) {
    case 'find':
    case 'delete':
      if (assign.length || Object.keys(def.assign).length) problems.push({ path: 'assign', message: `a ${def.operation} assigns nothing` });
      if (def.operation === 'delete' && !Object.keys(def.filter).length) problems.push({ path: 'filter', message: 'a delete needs a filter' });
      break;
    case 'create':
      if (Object.keys(def.filter).length) problems.push({ path: 'filter', message: 'a create has no filter' });
      for (const [field, spec] of Object.entries(schema.fields)) {
        if (!spec.required || spec.default !== undefined) continue;
        const a = assign.find((x) => x.field === field);
        if (!a) problems.push({ path: `assign.${field}`, message: `${field} is required by ${schema.name}: assign it` });
        else if (a.from.kind === 'input' && def.inputs[a.from.name]!.required !== true) {
          problems.push({ path: `assign.${field}`, message: `${field} is required by ${schema.name}, so input ${a.from.name} must be required` });
        }
      }
      break;
    case 'update':
      if (!Object.keys(def.filter).length) problems.push({ path: 'filter', message: 'an update needs a filter' });
      if (!Object.keys(def.assign).length) problems.push({ path: 'assign', message: 'an update assigns at least one field' });
      break;
  }
}

/** An endpoint without a token: only a find, on an unguarded schema, with no caller or scope. */
function checkAuth({ def, schema, problems, isFind }: Compilation, filter: Term[], scope: Source | undefined): void {
  if (def.auth !== 'none') return;
  if (!isFind) problems.push({ path: 'auth', message: `only a find may run without a token; this is a ${def.operation}` });
  else if (schema.guarded) {
    problems.push({ path: 'auth', message: `only a find on a schema without authorization may run without a token; ${schema.name} has authorization enabled` });
  }
  if (filter.some((t) => t.from.kind === 'caller') || scope) problems.push({ path: 'auth', message: "the caller's id and a scope need a token" });
}
