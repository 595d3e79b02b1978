// GraphQL requests from intents (admin fields) and typed arguments (client fields), with hostile documents around them.
import fc from 'fast-check';
import { flatArgs } from '../../../src/surfaces/flat-args.js';
import type { Route } from '../../../src/surfaces/registry.js';
import { argsOf, safeArgs } from './flat.js';
import { intents, PLAUSIBLE } from './inputs.js';
import { POISON } from './mutation.js';
import { hostileValue } from './values.js';

/** What is done to the document around the field: nothing mostly, else what GraphQL servers have been brought down with. */
const WRAPS = ['none', 'none', 'none', 'none', 'none', 'literal', 'literal', 'aliases', 'deep', 'tokens', 'syntax', 'unknown-field', 'wrong-op', 'batched', 'not-string',
  'variables-text', 'directives', 'fragment-cycle', 'long-name'] as const;
export type Wrap = typeof WRAPS[number];

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A JSON value as a GraphQL literal (keys that are not GraphQL names make it a syntax error, which is hostile too). */
export function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${literal(x)}`).join(', ')}}`;
}

export interface GqlRequest {
  body: unknown;
  label: string;
}

/** The document around one field call, written per `wrap`. */
function wrapped(op: 'query' | 'mutation', field: string, call: string, decls: string, variables: Record<string, unknown>, wrap: Wrap, n: number): unknown {
  const head = decls ? `${op} (${decls})` : op;
  switch (wrap) {
    case 'aliases':
      return { query: `${head} { ${Array.from({ length: 50 + n * 40 }, (_, i) => `a${i}: ${call}`).join(' ')} }`, variables };
    case 'deep':
      return { query: `query { __schema { ${'types { fields { type { '.repeat(20 + n * 10)}name${' } } }'.repeat(20 + n * 10)} } }` };
    case 'tokens':
      return { query: `${head} { ${call} ${'__typename '.repeat(5000 + n * 2000)} }`, variables };
    case 'syntax':
      return { query: `${head} { ${call}`.slice(0, -1 - (n % 5)), variables };
    case 'unknown-field':
      return { query: `${op} { ${field}_nope ${'x'.repeat(n)} }` };
    case 'wrong-op':
      return { query: `${op === 'query' ? 'mutation' : 'query'}${decls ? ` (${decls})` : ''} { ${call} }`, variables };
    case 'batched':
      return [{ query: `${head} { ${call} }`, variables }, { query: `${head} { ${call} }`, variables }];
    case 'not-string':
      return { query: { $ne: null }, variables };
    case 'variables-text':
      return { query: `${head} { ${call} }`, variables: JSON.stringify(variables) };
    case 'directives':
      return { query: `${head} { ${call} ${'@include(if: true) '.repeat(100 + n * 50)} }`, variables };
    case 'fragment-cycle':
      return { query: `${head} { ...A } fragment A on ${op === 'query' ? 'Query' : 'Mutation'} { ...B } fragment B on ${op === 'query' ? 'Query' : 'Mutation'} { ...A }`,
        variables };
    case 'long-name':
      return { query: `${head} { ${'f'.repeat(100_000)}: ${call} }`, variables };
    default:
      return { query: `${head} { ${call} }`, variables };
  }
}

export interface AdminGqlCase {
  intent: ReturnType<typeof intents> extends fc.Arbitrary<infer I> ? I : never;
  wrap: Wrap;
  n: number;
}

export const adminGqlCases = (r: Route, known: string[]): fc.Arbitrary<AdminGqlCase> => fc.record({ intent: intents(r, known), wrap: fc.constantFrom(...WRAPS), n: fc.nat(9) });

/** One admin field call; null when a mutating route has nothing to poison (sent without credentials instead). */
export function adminGqlRequest(r: Route, c: AdminGqlCase): GqlRequest | null {
  // Variables can only be passed to arguments with GraphQL names; literals write every key (others are syntax errors).
  const all = Object.entries(argsOf(r, flatArgs(r), c.intent)).filter(([k]) => c.wrap === 'literal' || NAME.test(k));
  const args = safeArgs(r, Object.fromEntries(all), { dropsUnknown: false });
  if (!args) return null;
  const op = r.http.method === 'get' ? 'query' : 'mutation';
  const entries = Object.entries(args);
  const variables: Record<string, unknown> = {};
  const decls: string[] = [];
  const parts = entries.map(([k, v], i) => {
    if (c.wrap === 'literal') return `${k}: ${literal(v)}`;
    variables[`v${i}`] = v;
    decls.push(`$v${i}: JSON`);
    return `${k}: $v${i}`;
  });
  const call = `${r.id}${parts.length ? `(${parts.join(', ')})` : ''}`;
  return { body: wrapped(op, r.id, call, decls.join(', '), variables, c.wrap, c.n), label: r.id };
}

/** The client schema's fields for one database schema (Note: title, pages, meta), each with its typed arguments. */
export const CLIENT_FIELDS = {
  check: { field: 'authorizationCheck', op: 'query', args: { action: 'String!', resource: 'String!', scope: 'String' }, select: '', mutates: false },
  me: { field: 'me', op: 'query', args: {}, select: '', mutates: false },
  find: { field: 'findNote', op: 'query', args: { skip: 'Int', limit: 'Int', sort: 'String', scope: 'String', where: 'NoteFilter' },
    select: '{ count documents { _id title pages meta } }', mutates: false },
  findOne: { field: 'findOneNote', op: 'query', args: { id: 'ID!' }, select: '{ _id title }', mutates: false },
  create: { field: 'createNote', op: 'mutation', args: { input: 'NoteInput!', scope: 'String' }, select: '{ _id }', mutates: true },
  patch: { field: 'patchNote', op: 'mutation', args: { id: 'ID!', input: 'NoteInput!' }, select: '{ _id }', mutates: true },
  remove: { field: 'deleteNote', op: 'mutation', args: { id: 'ID!' }, select: '{ tuples }', mutates: true },
} as const;
export type ClientField = keyof typeof CLIENT_FIELDS;

const typedValue = (type: string, known: string[]): fc.Arbitrary<unknown> => {
  const base = type.replace('!', '');
  const plausible = base === 'Int' ? fc.constantFrom(0, 1, 25)
    : base === 'NoteInput' ? fc.record({ title: fc.constantFrom('t', ...PLAUSIBLE), pages: fc.constantFrom(1, 2) }, { requiredKeys: [] })
    : base === 'NoteFilter' ? fc.record({ title: fc.constantFrom('t', 'x') }, { requiredKeys: [] }) : fc.constantFrom(...PLAUSIBLE, ...known);
  return fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: hostileValue });
};

export interface ClientGqlCase {
  vars: Record<string, unknown>;
  omit: boolean[];
  wrap: Wrap;
  n: number;
}

export const clientGqlCases = (f: ClientField, known: string[]): fc.Arbitrary<ClientGqlCase> => {
  const spec = CLIENT_FIELDS[f];
  const names = Object.keys(spec.args) as Array<keyof typeof spec.args>;
  return fc.record({
    vars: fc.record(Object.fromEntries(names.map((n) => [n, typedValue(spec.args[n], known)])) as Record<string, fc.Arbitrary<unknown>>),
    omit: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), { minLength: names.length, maxLength: names.length }),
    wrap: fc.constantFrom(...WRAPS),
    n: fc.nat(9),
  });
};

/**
 * One client field call. A mutating field always carries a NUL in a string the pipeline reads (the id, or the
 * input's title), so it is refused whatever else the generated arguments hold.
 */
export function clientGqlRequest(f: ClientField, c: ClientGqlCase): GqlRequest {
  const spec = CLIENT_FIELDS[f];
  const types = spec.args as Record<string, string>;
  const vars: Record<string, unknown> = {};
  // Required arguments are left out now and then too: "missing fields".
  Object.keys(types).forEach((n, i) => {
    if (!c.omit[i]) vars[n] = c.vars[n];
  });
  if (spec.mutates) {
    if ('id' in spec.args) vars.id = POISON;
    else vars.input = { ...(vars.input && typeof vars.input === 'object' && !Array.isArray(vars.input) ? vars.input : {}), title: POISON };
  }
  const used = Object.keys(vars).filter((n) => n in types);
  const decls = used.map((n) => `$${n}: ${types[n]}`).join(', ');
  const call = `${spec.field}${used.length ? `(${used.map((n) => `${n}: $${n}`).join(', ')})` : ''} ${spec.select}`;
  const wrap = spec.mutates && c.wrap === 'literal' ? 'none' : c.wrap;
  if (wrap === 'literal') {
    const inline = Object.keys(vars).map((n) => `${n}: ${literal(vars[n])}`).join(', ');
    return { body: { query: `${spec.op} { ${spec.field}${inline ? `(${inline})` : ''} ${spec.select} }` }, label: spec.field };
  }
  return { body: wrapped(spec.op, spec.field, call, decls, vars, wrap, c.n), label: spec.field };
}
