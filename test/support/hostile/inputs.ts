// Generated input for a registry route, from its own zod schemas: plausible values, hostile ones, missing and extra fields.
import fc from 'fast-check';
import type { z } from 'zod';
import type { Route } from '../../../src/surfaces/registry.js';
import { extraEntries, hostileValue, own } from './values.js';

export type Where = 'params' | 'query' | 'body';
/** What one call carries, as JSON values per location; each transport writes it its own way. */
export interface Intent {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** Strings a route may well accept, so generated input also gets past validation into the handlers. */
export const PLAUSIBLE = ['User:u1', 'Doc:d1', 'Team:t1', 'Note:n1', 'read', 'viewer', 'owner', 'member', 'Doc', 'User', 'Note', 'core', 'router', 'a@b.io', 'correct horse', 'v1',
  '0', '25'];

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string>;
  values?: unknown[];
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  format?: string;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional, default, nullable and transforms: what the input itself must look like. */
export function bare(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let d = defOf(cur);; d = defOf(cur)) {
    if ((d.type === 'optional' || d.type === 'default' || d.type === 'nullable' || d.type === 'prefault') && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else return cur;
  }
}

/** The object shape of a location's schema, or null when it is not an object with named fields. */
export const shapeOf = (s: z.ZodType | undefined) => (s && defOf(bare(s)).type === 'object' ? defOf(bare(s)).shape! : null);

/** A value the schema would likely take, built from what it says about itself (enums, literals, types). */
export function plausible(s: z.ZodType, known: string[], depth = 0): fc.Arbitrary<unknown> {
  const d = defOf(bare(s));
  const text = fc.constantFrom(...PLAUSIBLE, ...known);
  switch (d.type) {
    case 'enum':
      return fc.constantFrom(...Object.values(d.entries!));
    case 'literal':
      return fc.constantFrom(...d.values!);
    case 'boolean':
      return fc.boolean();
    case 'number':
    case 'int':
    case 'bigint':
      return fc.constantFrom(0, 1, 2, 25, 100);
    case 'string':
      return d.format === 'email' ? fc.constantFrom('a@b.io', 'hostile@example.com') : text;
    case 'union':
      return fc.oneof(...d.options!.map((o) => plausible(o, known, depth)));
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(plausible(d.element!, known, depth + 1), { minLength: 1, maxLength: 3 });
    case 'record':
      return depth > 3 ? fc.constant({}) : fc.array(fc.tuple(text, plausible(d.valueType!, known, depth + 1)), { maxLength: 3 }).map(own);
    case 'object':
      return depth > 3 ? fc.constant({}) : objectOf(d.shape!, known, depth + 1, false);
    default:
      return fc.oneof(text, fc.integer({ min: 0, max: 100 }), fc.boolean());
  }
}

/** A field's value: mostly plausible, often hostile. */
const fieldValue = (s: z.ZodType, known: string[], depth: number) => fc.oneof({ weight: 3, arbitrary: plausible(s, known, depth) }, { weight: 2, arbitrary: hostileValue });

/** An object for a shape: each field present or missing (required ones missing now and then), sometimes with extra fields. */
function objectOf(shape: Record<string, z.ZodType>, known: string[], depth: number, extras = true): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(shape).map(([k, s]) => {
    const optional = s.safeParse(undefined).success;
    return fc.option(fieldValue(s, known, depth).map((v) => [k, v] as [string, unknown]), { freq: optional ? 2 : 12 });
  });
  return fc.tuple(fc.tuple(...fields), extras ? fc.option(extraEntries, { freq: 4 }) : fc.constant(null))
    .map(([present, extra]) => own([...present.filter((e): e is [string, unknown] => e !== null), ...(extra ?? [])]));
}

/** One location's value: from its schema, or (rarely) of a wrong type altogether; nothing or junk where it takes none. */
function location(s: z.ZodType | undefined, known: string[]): fc.Arbitrary<unknown> {
  if (!s) return fc.option(extraEntries.map(own), { freq: 6, nil: undefined });
  const shape = shapeOf(s);
  const fitting = shape ? objectOf(shape, known, 0) : plausible(s, known);
  return fc.oneof({ weight: 8, arbitrary: fitting }, { weight: 1, arbitrary: hostileValue });
}

/** Intents for one route: params, query and body each generated from the route's schema for that location. */
export function intents(r: Route, known: string[] = []): fc.Arbitrary<Intent> {
  return fc.record({ params: location(r.params, known), query: location(r.query, known), body: location(r.body, known) })
    .map((i) => Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined)) as Intent);
}
