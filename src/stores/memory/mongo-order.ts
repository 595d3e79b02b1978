// MongoDB's ordering and filter matching for the in-memory twins: sorts and the filter operators the services send.

/** MongoDB's order of value kinds: missing and null first, then numbers, strings, objects, arrays, booleans, dates. */
const rank = (v: unknown): number => {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  if (v instanceof Date) return 6;
  if (Array.isArray(v)) return 4;
  if (typeof v === 'boolean') return 5;
  return 3;
};

/** Compares two values as MongoDB sorts them (strings by code point, as its default binary collation). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  return ja < jb ? -1 : ja > jb ? 1 : 0;
}

/** A comparator for `sort` (field → 1 or -1, in priority order), as `find().sort()` applies it. */
export function sorter<T>(sort: Record<string, 1 | -1>): (a: T, b: T) => number {
  const keys = Object.entries(sort);
  return (a, b) => {
    for (const [field, dir] of keys) {
      const c = compareValues((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]);
      if (c !== 0) return c * dir;
    }
    return 0;
  };
}

/** Equality as a filter means it: equal values, or an array field holding the value. */
function equals(field: unknown, value: unknown): boolean {
  if (Array.isArray(field) && !Array.isArray(value)) return field.some((f) => equals(f, value));
  if ((field === undefined || field === null) && value === null) return true;
  if (field instanceof Date && value instanceof Date) return field.getTime() === value.getTime();
  if (typeof field === 'object' && field !== null) return JSON.stringify(field) === JSON.stringify(value);
  return field === value;
}

/** `$gt` and its kin compare values of one kind only (a string is never greater than a number). */
function ordered(field: unknown, value: unknown, test: (c: number) => boolean): boolean {
  if (Array.isArray(field)) return field.some((f) => ordered(f, value, test));
  if (rank(field) !== rank(value) || field === undefined || field === null) return false;
  return test(compareValues(field, value));
}

const OPERATORS: Record<string, (field: unknown, value: unknown) => boolean> = {
  $eq: equals,
  $ne: (f, v) => !equals(f, v),
  $gt: (f, v) => ordered(f, v, (c) => c > 0),
  $gte: (f, v) => ordered(f, v, (c) => c >= 0),
  $lt: (f, v) => ordered(f, v, (c) => c < 0),
  $lte: (f, v) => ordered(f, v, (c) => c <= 0),
  $in: (f, v) => (v as unknown[]).some((x) => equals(f, x)),
  $nin: (f, v) => !(v as unknown[]).some((x) => equals(f, x)),
};

const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
  && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));

/** Whether `doc` matches `filter`: field equality, `$eq $ne $gt $gte $lt $lte $in $nin`, and `$and` / `$or` of filters. */
export function matches(doc: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === '$and') return (cond as Array<Record<string, unknown>>).every((f) => matches(doc, f));
    if (key === '$or') return (cond as Array<Record<string, unknown>>).some((f) => matches(doc, f));
    const field = doc[key];
    if (!isOperatorObject(cond)) return equals(field, cond);
    return Object.entries(cond).every(([op, value]) => {
      const test = OPERATORS[op];
      if (!test) throw new Error(`the in-memory store does not know the filter operator ${op}`);
      return test(field, value);
    });
  });
}
