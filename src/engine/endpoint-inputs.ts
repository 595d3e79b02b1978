// A custom endpoint's call: its typed inputs read from query, body and path, and the filter and fields they resolve to (pure).
import { z } from 'zod';
import { PAGING, type EndpointDefinition, type InputType, type Plan, type Source } from './custom-endpoints.js';
import type { Problem } from './schema-fields.js';

/** The longest string an input takes. */
const MAX_TEXT = 1000;
const NUMBER_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

const date = z.string().max(100).refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date').transform((s) => new Date(s).toISOString());
/** Query and path values are text: each type is read from its text form. */
const TEXT: Record<InputType, z.ZodType> = {
  String: z.string().max(MAX_TEXT),
  Number: z.string().regex(NUMBER_TEXT, 'must be a number').transform(Number).refine(Number.isFinite, 'must be a finite number'),
  Boolean: z.enum(['true', 'false'], 'must be true or false').transform((s) => s === 'true'),
  Date: date,
  ObjectId: z.string().min(1).max(200),
};
/** Body values are JSON: each type is its JSON type (never an object, so no input can carry a query operator). */
const JSON_VALUE: Record<InputType, z.ZodType> = {
  String: z.string().max(MAX_TEXT),
  Number: z.number().refine(Number.isFinite, 'must be a finite number'),
  Boolean: z.boolean(),
  Date: date,
  ObjectId: z.string().min(1).max(200),
};

export interface CallInput {
  query: Record<string, unknown>;
  body: unknown;
  path?: string;
}
export interface ReadInputs {
  values: Record<string, unknown>;
  page: { skip: number; limit: number };
  problems: Problem[];
}

/** The schemas of one call, generated from the definition's inputs: strict, so an unknown input is refused by name. */
export function inputSchemas(def: EndpointDefinition, paged: boolean) {
  const query: Record<string, z.ZodType> = {};
  const body: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(def.inputs)) {
    if (spec.from === 'path') continue;
    const base = (spec.from === 'query' ? TEXT : JSON_VALUE)[spec.type];
    (spec.from === 'query' ? query : body)[name] = spec.required === true ? base : base.optional();
  }
  if (paged) {
    query[PAGING[0]] = z.coerce.number().int().min(0).max(1_000_000).default(0);
    query[PAGING[1]] = z.coerce.number().int().min(1).max(1000).default(25);
  }
  return { query: z.strictObject(query), body: z.strictObject(body) };
}

/** Reads and types every input; each problem names its input (`query.title`, `body.count`, `path.id`). */
export function readInputs(def: EndpointDefinition, paged: boolean, call: CallInput): ReadInputs {
  const problems: Problem[] = [];
  const values: Record<string, unknown> = {};
  const schemas = inputSchemas(def, paged);
  let page = { skip: 0, limit: 1000 };
  for (const where of ['query', 'body'] as const) {
    const raw = where === 'body' ? (call.body ?? {}) : call.query;
    const r = schemas[where].safeParse(raw);
    if (!r.success) {
      for (const i of r.error.issues) {
        if (i.code === 'unrecognized_keys') { for (const k of i.keys) problems.push({ path: `${where}.${k}`, message: `not an input of ${def.name}` }); }
        else problems.push({ path: [where, ...i.path.map(String)].join('.'), message: i.path.length ? i.message : `must be an object of inputs (${i.message})` });
      }
      continue;
    }
    const data = r.data as Record<string, unknown>;
    if (where === 'query' && paged) {
      page = { skip: data.skip as number, limit: data.limit as number };
      delete data.skip;
      delete data.limit;
    }
    Object.assign(values, data);
  }
  const pathInput = Object.entries(def.inputs).find(([, s]) => s.from === 'path');
  if (pathInput) {
    const [name, spec] = pathInput;
    if (call.path === undefined) problems.push({ path: `path.${name}`, message: `is required: call /database/function/${def.name}/<${name}>` });
    else {
      const r = TEXT[spec.type].safeParse(call.path);
      if (r.success) values[name] = r.data;
      else problems.push({ path: `path.${name}`, message: r.error.issues[0]!.message });
    }
  } else if (call.path !== undefined) problems.push({ path: 'path', message: `${def.name} takes no path value` });
  return { values, page, problems };
}

const valueOf = (from: Source, values: Record<string, unknown>, callerId: string | null): unknown =>
  from.kind === 'input' ? values[from.name] : from.kind === 'caller' ? callerId : from.value;
const absent = (from: Source, values: Record<string, unknown>) => from.kind === 'input' && values[from.name] === undefined;

/**
 * The MongoDB filter, the fields to set and the scope of one call. Every value is a typed scalar placed by the
 * definition, under a field and an operator the definition chose, so no caller's input can become an operator.
 * A find leaves out terms whose optional input was not given; writes only refer to required inputs.
 */
export function resolve(plan: Plan, values: Record<string, unknown>, callerId: string | null) {
  const filter: Record<string, unknown> = {};
  for (const t of plan.filter) {
    if (absent(t.from, values)) continue;
    const v = valueOf(t.from, values, callerId);
    filter[t.field] = t.op === 'eq' ? v : { [`$${t.op}`]: v };
  }
  const set: Record<string, unknown> = {};
  for (const a of plan.assign) if (!absent(a.from, values)) set[a.field] = valueOf(a.from, values, callerId);
  const scope = plan.scope && !absent(plan.scope, values) ? valueOf(plan.scope, values, callerId) : undefined;
  return { filter, set, scope: scope as string | undefined };
}
