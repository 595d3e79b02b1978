// MongoDB's duplicate-key error (code 11000): recognised only here, and turned into neutral answers for the services.
import { DuplicateKey } from '../ports/errors.js';

export const DUPLICATE_KEY = 11000;

/**
 * A duplicate key: code 11000, or FerretDB v1's answer to a unique index built over values stored twice, an internal
 * error carrying PostgreSQL's unique violation (SQLSTATE 23505), where MongoDB answers 11000.
 */
export const isDuplicateKey = (e: unknown): boolean =>
  (e as { code?: number }).code === DUPLICATE_KEY
  || ((e as { code?: number }).code === 1 && /\(SQLSTATE 23505\)/.test((e as { message?: string }).message ?? ''));

/** `fn`'s result, or null when it failed on a duplicate key. */
export async function nullIfDuplicate<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if (isDuplicateKey(e)) return null;
    throw e;
  }
}

/** `fn`'s result; a duplicate-key failure is thrown as the ports' DuplicateKey. */
export async function neutralDuplicate<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isDuplicateKey(e)) throw new DuplicateKey();
    throw e;
  }
}

/**
 * An upsert raced by another of the same `_id`: both miss, both insert, one fails with a duplicate key. MongoDB's
 * advice is to run it again, which now finds the document and updates it.
 */
export async function upsertRaced<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!isDuplicateKey(e)) throw e;
    return fn();
  }
}
