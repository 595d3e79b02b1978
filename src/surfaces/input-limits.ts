// The shape limits every call's input is held to before validation: string size, array length, keys per object, depth.
import { AppError } from '../errors.js';

export interface InputLimits {
  /** Longest string, in UTF-8 bytes (keys included). */
  stringBytes: number;
  /** Most items in one array. */
  arrayItems: number;
  /** Most keys in one object. */
  objectKeys: number;
  /** Deepest nesting of arrays and objects. */
  depth: number;
}

/** UTF-8 length, computed only when the string could pass `max` (a UTF-16 unit is at most 3 UTF-8 bytes). */
const overBytes = (s: string, max: number) => s.length * 3 > max && Buffer.byteLength(s) > max;

/**
 * Throws 413 PAYLOAD_TOO_LARGE naming the first place past a limit. It runs before the route's schema, so a
 * schema's own work (regexes, refinements, records) is bounded too, and on every transport alike.
 */
export function checkShape(value: unknown, where: string, limits: InputLimits): void {
  const walk = (v: unknown, path: string, depth: number): void => {
    if (typeof v === 'string') {
      if (overBytes(v, limits.stringBytes)) throw tooLarge(path, `is longer than ${limits.stringBytes} bytes`);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth >= limits.depth) throw tooLarge(path, `nests deeper than ${limits.depth} levels`);
    if (Array.isArray(v)) {
      if (v.length > limits.arrayItems) throw tooLarge(path, `has more than ${limits.arrayItems} items`);
      for (let i = 0; i < v.length; i++) walk(v[i], `${path}.${i}`, depth + 1);
      return;
    }
    const keys = Object.keys(v);
    if (keys.length > limits.objectKeys) throw tooLarge(path, `has more than ${limits.objectKeys} keys`);
    for (const k of keys) {
      if (overBytes(k, limits.stringBytes)) throw tooLarge(path, `has a key longer than ${limits.stringBytes} bytes`);
      walk((v as Record<string, unknown>)[k], `${path}.${k.length > 64 ? `${k.slice(0, 64)}…` : k}`, depth + 1);
    }
  };
  walk(value, where, 0);
}

const tooLarge = (path: string, message: string) => new AppError('PAYLOAD_TOO_LARGE', `${path} ${message}`, [{ path, message }]);
