// Object and tuple identifiers: `Type:id` and `S#rel@O`, parsed strictly per DESIGN.md section 4.

/** Code-unit order of strings, as Neo4j and MongoDB order them (not localeCompare). */
export const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Type, relation and permission names: a letter, then letters, digits or `_`; at most 128 characters. */
export const NAME_RE = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;
export const NAME_RULE = 'must match ^[A-Za-z][A-Za-z0-9_]*$ (at most 128 characters)';
/**
 * The longest id, in UTF-8 bytes: SpiceDB's 1,024, so its models' ids (base64 tokens, long paths) fit. Ids are keys in
 * every store and every cache: an unbounded one lets a single caller fill Redis and the service's memory (DESIGN.md
 * section 4 leaves the length open; the README states this one). A tuple of two such objects stays within
 * PostgreSQL's index entry (2,704 bytes) under FerretDB's unique index on the tuple text.
 */
export const MAX_ID_BYTES = 1024;
/** The longest `Type:id`: a longest name, `:`, a longest id. */
export const MAX_OBJECT_BYTES = 128 + 1 + MAX_ID_BYTES;
export const OBJECT_RULE = `must be Type:id (id without #, @ or whitespace; at most ${MAX_ID_BYTES} bytes)`;

/** UTF-8 length without allocating for short strings: a UTF-16 unit is at most 3 UTF-8 bytes. */
const withinBytes = (text: string, max: number) => text.length * 3 <= max || new TextEncoder().encode(text).length <= max;

export interface ObjectRef {
  type: string;
  id: string;
}
export interface Tuple {
  subject: string;
  relation: string;
  resource: string;
}

/** `Type:id` -> parts, or null. The id is everything after the first `:`. */
export function parseObject(text: unknown): ObjectRef | null {
  if (typeof text !== 'string' || !withinBytes(text, MAX_OBJECT_BYTES)) return null;
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  const type = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (!NAME_RE.test(type) || id === '' || /[#@\s]/.test(id) || !withinBytes(id, MAX_ID_BYTES)) return null;
  return { type, id };
}

export const typeOf = (object: string): string => object.slice(0, object.indexOf(':'));

/** `S#r@O` -> parts, or null. */
export function parseTupleText(text: string): Tuple | null {
  const hash = text.indexOf('#');
  const at = text.indexOf('@', hash + 1);
  if (hash < 0 || at < 0) return null;
  const t = { subject: text.slice(0, hash), relation: text.slice(hash + 1, at), resource: text.slice(at + 1) };
  return isWellFormed(t) ? t : null;
}

export const isWellFormed = (t: Tuple): boolean => parseObject(t.subject) !== null && parseObject(t.resource) !== null && NAME_RE.test(t.relation);

export const tupleText = (t: Tuple): string => `${t.subject}#${t.relation}@${t.resource}`;
