// Hostile values for generated input: wrong types, huge and empty strings, deep nesting, `$`-operators, NUL, prototype keys.
import fc from 'fast-check';

/** A JSON object with `key` as an own property, even `__proto__` (an object literal would set the prototype instead). */
export const own = (entries: Array<[string, unknown]>): Record<string, unknown> => Object.fromEntries(entries);

/** Nested `depth` levels deep, alternating objects and arrays, so every walker of the input meets it. */
export function deep(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : own([['a', v]]);
  return v;
}

/** Strings that have broken parsers, stores and validators elsewhere; each one is tried as any string field. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'User:a\u0000b',
  'a'.repeat(513),
  `User:${'i'.repeat(600)}`,
  `${'T'.repeat(300)}:x`,
  'x'.repeat(70_000),
  '$ne',
  '$where',
  '{"$gt":""}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '..',
  '../..',
  '%00',
  '%2F',
  '/',
  '\\',
  ':',
  'User:',
  ':id',
  'User:a#b@c',
  'User:a b',
  'Doc:d1#viewer@User:u1',
  '\ud800',
  '\udfff',
  '\u202e',
  '\ufeff',
  '😀',
  'é',
  '\u0001\u001f',
  'line\nbreak',
  '\t',
  'NaN',
  'Infinity',
  '-1',
  '-0',
  '1e308',
  '0x10',
  '9007199254740993',
  '1.5',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  "' OR 1=1 --",
  'MATCH (n) DETACH DELETE n',
  '}) RETURN n //',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '*',
  '.*',
  '(a+)+$',
];

const nastyString = fc.constantFrom(...NASTY_STRINGS);

/** Any string: the nasty list, arbitrary unicode (lone surrogates included), or a long one. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '$', '\u0000', 'é'), fc.integer({ min: 200, max: 5000 })).map(([c, n]) => c.repeat(n)) },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 31) - 1, 1001, 3651),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** An object whose keys are what stores and prototypes trip on. */
const hostileKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', '$gt', '$where', '$set', 'a.b', '', '\u0000', 'x'.repeat(300), 'toString');

/** A value of any JSON type, hostile in shape or content. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: hostileString },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
    // Built once: nothing changes a generated value, and rebuilding the 2000-level one per draw was seconds of a run.
    { weight: 1, arbitrary: fc.constantFrom(...[20, 65, 200, 2000].map(deep)) },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(hostileKeys, fc.string({ maxLength: 8 })), tie('v')), { maxLength: 4 }).map(own) },
    { weight: 1,
      arbitrary: fc.constantFrom(own([['$ne', null]]), own([['$gt', '']]), own([['__proto__', own([['admin', true]])]]),
        own([['constructor', own([['prototype', own([['x', 1]])]])]])) },
    { weight: 1, arbitrary: fc.integer({ min: 1001, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => `Doc:d${i}`)) },
  ),
})).v;

/** Extra top-level entries a location may carry: unknown fields, operators and prototype keys. */
export const extraEntries: fc.Arbitrary<Array<[string, unknown]>> = fc.array(
  fc.tuple(fc.oneof(hostileKeys, fc.constantFrom('extra', 'subject', 'admin', 'role', 'isAdmin')), hostileValue),
  { minLength: 1, maxLength: 3 },
);
