// Flat arguments for a registry route (GraphQL fields, MCP tools): path parameters, query and body fields side by side.
import { z } from 'zod';
import { AppError } from '../errors.js';
import type { RawInput } from './pipeline.js';
import type { Route } from './registry.js';

type Where = 'params' | 'query' | 'body';
export interface FlatArg {
  name: string;
  where: Where;
  required: boolean;
  description?: string;
  schema?: z.ZodType;
}
/** `whole` names a location taken as one argument (its schema is not an object with named fields). */
export interface FlatArgs {
  args: FlatArg[];
  whole: Partial<Record<Where, string>>;
}

const IDENT = /^[_A-Za-z][_0-9A-Za-z]*$/;

function objectShape(schema: z.ZodType | undefined): { shape: Record<string, z.ZodType>; optional: boolean } | null {
  let s: unknown = schema;
  let optional = false;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) {
    optional = true;
    s = s.unwrap();
  }
  return s instanceof z.ZodObject ? { shape: s.shape as Record<string, z.ZodType>, optional } : null;
}

export function flatArgs(r: Route): FlatArgs {
  const out: FlatArgs = { args: [], whole: {} };
  for (const where of ['params', 'query', 'body'] as const) {
    const schema = r[where];
    if (!schema) continue;
    const obj = objectShape(schema);
    if (!obj || Object.keys(obj.shape).some((k) => !IDENT.test(k))) {
      out.whole[where] = where;
      continue;
    }
    for (const [name, field] of Object.entries(obj.shape)) {
      if (out.args.some((a) => a.name === name)) continue; // the first location wins; no route of ours repeats a name
      out.args.push({ name, where, required: !obj.optional && !field.safeParse(undefined).success, description: field.description, schema: field });
    }
  }
  return out;
}

/** REST sends path and query values as strings; flat callers send JSON, so scalars are turned into the strings REST would send. */
const asText = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);

/**
 * An argument the route does not declare is refused, as REST refuses an unknown body field, rather than dropped; so is
 * one the tool fixes itself (a config tool's module), which would otherwise be replaced without a word.
 */
function refuseUndeclared(flat: FlatArgs, args: Record<string, unknown>, fixed: Record<string, unknown>): void {
  const known = new Set<string>([...flat.args.map((a) => a.name), ...Object.values(flat.whole)].filter((k) => !Object.hasOwn(fixed, k)));
  const extra = Object.keys(args).filter((k) => !known.has(k));
  if (extra.length) {
    // Names are the caller's: a few, each cut short, so a huge key does not make a huge answer or log line.
    const named = extra.slice(0, 10).map((k) => (k.length > 64 ? `${k.slice(0, 64)}…` : k));
    throw new AppError('VALIDATION_FAILED', `Unknown arguments: ${named.join(', ')}`, named.map((k) => ({ path: k, message: 'not an argument of this tool' })));
  }
}

/** `fixed`: arguments the caller may not give, added after the check (a config tool's module). */
export function splitArgs(r: Route, flat: FlatArgs, given: Record<string, unknown>, fixed: Record<string, unknown> = {}): RawInput {
  refuseUndeclared(flat, given, fixed);
  const args = { ...given, ...fixed };
  const raw: RawInput = {};
  for (const where of ['params', 'query', 'body'] as const) {
    if (!r[where]) continue;
    if (flat.whole[where]) {
      raw[where] = args[where];
      continue;
    }
    const part: Record<string, unknown> = {};
    for (const a of flat.args) {
      if (a.where !== where || args[a.name] === undefined) continue;
      part[a.name] = where === 'body' ? args[a.name] : asText(args[a.name]);
    }
    raw[where] = part;
  }
  return raw;
}
