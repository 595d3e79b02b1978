// Input the document store cannot hold (FerretDB v1 and MongoDB refuse it): found before any write, answered with a 400.
export interface Unstorable {
  path: string;
  message: string;
}

/**
 * NUL characters in strings, keys that start with `$` or contain `.` (operators and paths to the
 * store), and arrays nested in arrays (FerretDB v1) would fail only at the store, after other writes;
 * `__proto__` keys would be dropped or turn into prototypes on their way there.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unstorable(value: unknown, path: string, depth = 0): Unstorable | null {
  if (depth > 64) return { path, message: 'is nested too deeply' };
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { path, message: 'contains a NUL character' };
    // A lone surrogate (JSON's "\ud800") has no UTF-8 form: the store would keep U+FFFD, an id the index never matches.
    return LONE_SURROGATE.test(value) ? { path, message: 'contains a lone surrogate (not Unicode text)' } : null;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      if (Array.isArray(v)) return { path: `${path}.${i}`, message: 'arrays inside arrays cannot be stored' };
      const bad = unstorable(v, `${path}.${i}`, depth + 1);
      if (bad) return bad;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith('$') || k.includes('.') || k.includes('\u0000') || LONE_SURROGATE.test(k)) {
        return { path: `${path}.${k}`, message: 'keys may not start with $ or contain . or NUL' };
      }
      // Parsed JSON holds `__proto__` as a plain key, but zod's records drop it silently and an assignment of it to an
      // object sets the prototype: refused like the store's own forbidden keys, never half-taken.
      if (k === '__proto__') return { path: `${path}.${k}`, message: 'a key may not be __proto__' };
      const bad = unstorable(v, `${path}.${k}`, depth + 1);
      if (bad) return bad;
    }
  }
  return null;
}
