// Deep copies for the in-memory twins: what goes in or comes out is never the stored object, as with a real store.
import { DuplicateKey } from '../ports/errors.js';

/**
 * Plain data (objects, arrays, dates, primitives) copied in this realm. structuredClone would do, but under jest's vm
 * its dates come from another realm and fail `instanceof Date` in the code under test.
 */
export function copy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map(copy) as T;
  if (v instanceof Set) return new Set([...v].map(copy)) as T;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, copy(x)])) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = copy(x);
  return out as T;
}

/** Stores a copy of `record` under its id, refusing an id taken as a unique `_id` does. */
export function insertNew<T extends { _id: string }>(map: Map<string, T>, record: T): void {
  if (map.has(record._id)) throw new DuplicateKey(`_id ${record._id} is taken`);
  map.set(record._id, copy(record));
}
