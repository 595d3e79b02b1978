// Database schemas: the field rules of DESIGN.md 6.1 and the checking of documents against them (pure).
import { NAME_RE } from './ids.js';

export const FIELD_TYPES = ['String', 'Number', 'Boolean', 'Date', 'ObjectId', 'JSON', 'Relation'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export interface FieldSpec {
  type: FieldType;
  required: boolean;
  unique: boolean;
  default?: unknown;
  model?: string;
}
export type Fields = Record<string, FieldSpec>;
export interface Problem {
  path: string;
  message: string;
}

/** Names the service keeps for itself: on every document, and as list parameters (a field of that name could not be a filter). */
const RESERVED = new Set(['_id', 'createdAt', 'updatedAt', 'skip', 'limit', 'sort', 'populate', 'scope']);
const FIELD_RE = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Whether `name` can be a schema field. */
export const usableFieldName = (name: string) => FIELD_RE.test(name) && !RESERVED.has(name);

/**
 * The field of this name, only if the schema declares it: `fields[name]` would also find what every object
 * inherits (`constructor`, `toString`), and a body or filter naming one would pass as a field of no type.
 */
export const fieldOf = (fields: Fields, name: string): FieldSpec | undefined => (Object.hasOwn(fields, name) ? fields[name] : undefined);

/** Normalises `fields` ({name: "String"} or {name: {type, required?, default?, unique?, model?}}); problems when invalid. */
export function parseFields(raw: unknown, knownSchemas: ReadonlySet<string>): { fields: Fields; problems: Problem[] } {
  const problems: Problem[] = [];
  const fields: Fields = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { fields, problems: [{ path: 'fields', message: 'must be an object' }] };
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const at = `fields.${name}`;
    if (!usableFieldName(name)) {
      problems.push({ path: at, message: 'not a usable field name (letters, digits, _; not _id, createdAt, updatedAt, skip, limit, sort, populate, scope)' });
      continue;
    }
    const spec = typeof value === 'string' ? { type: value } : value;
    if (!spec || typeof spec !== 'object' || Array.isArray(spec)) {
      problems.push({ path: at, message: 'must be a type name or an object' });
      continue;
    }
    const { type, required = false, unique = false, default: dflt, model, ...rest } = spec as Record<string, unknown>;
    if (Object.keys(rest).length) problems.push({ path: at, message: `unknown keys: ${Object.keys(rest).join(', ')}` });
    if (!FIELD_TYPES.includes(type as FieldType)) {
      problems.push({ path: `${at}.type`, message: `must be one of ${FIELD_TYPES.join(', ')}` });
      continue;
    }
    if (typeof required !== 'boolean' || typeof unique !== 'boolean') problems.push({ path: at, message: 'required and unique are booleans' });
    if (type === 'Relation') {
      if (typeof model !== 'string' || !NAME_RE.test(model)) problems.push({ path: `${at}.model`, message: 'a Relation needs the name of a schema' });
      else if (!knownSchemas.has(model)) problems.push({ path: `${at}.model`, message: `no schema ${model}` });
    } else if (model !== undefined) problems.push({ path: `${at}.model`, message: 'only a Relation has a model' });
    const field: FieldSpec = { type: type as FieldType, required: required === true, unique: unique === true };
    if (typeof model === 'string') field.model = model;
    if (dflt !== undefined) {
      const bad = checkValue(field, dflt);
      if (bad) problems.push({ path: `${at}.default`, message: bad });
      else field.default = dflt;
    }
    fields[name] = field;
  }
  return { fields, problems };
}

function checkValue(f: FieldSpec, v: unknown): string | null {
  if (v === null) return f.required ? 'is required' : null;
  switch (f.type) {
    case 'String':
      return typeof v === 'string' ? null : 'must be a string';
    case 'Number':
      return typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number';
    case 'Boolean':
      return typeof v === 'boolean' ? null : 'must be a boolean';
    case 'Date':
      return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? null : 'must be an ISO date string';
    case 'ObjectId':
    case 'Relation':
      return typeof v === 'string' && v.length > 0 && v.length <= 200 ? null : 'must be an id (string)';
    case 'JSON':
      return null;
    default:
      return 'has a field type this service does not know';
  }
}

/**
 * Checks a document body against the fields. A create fills defaults and needs every required field;
 * a patch checks only what it sets. Unknown fields are refused (strict, like every other body).
 */
export function checkDocument(fields: Fields, body: unknown, mode: 'create' | 'patch'): { doc: Record<string, unknown>; problems: Problem[] } {
  const problems: Problem[] = [];
  const doc: Record<string, unknown> = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { doc, problems: [{ path: 'body', message: 'must be an object' }] };
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const f = fieldOf(fields, name);
    if (!f) {
      problems.push({ path: `body.${name}`, message: 'unknown field' });
      continue;
    }
    const bad = checkValue(f, value);
    if (bad) problems.push({ path: `body.${name}`, message: bad });
    else doc[name] = f.type === 'Date' && typeof value === 'string' ? new Date(value).toISOString() : value;
  }
  if (mode === 'create') {
    for (const [name, f] of Object.entries(fields)) {
      if (Object.hasOwn(doc, name) || problems.some((p) => p.path === `body.${name}`)) continue;
      if (f.default !== undefined) doc[name] = f.default;
      else if (f.required) problems.push({ path: `body.${name}`, message: 'is required' });
    }
  }
  return { doc, problems };
}

/** Equality filters from query parameters: only schema fields, with values read as their field's type. */
export function equalityFilters(fields: Fields, query: Record<string, string>): { filter: Record<string, unknown>; problems: Problem[] } {
  const filter: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const [name, raw] of Object.entries(query)) {
    const f = fieldOf(fields, name);
    if (!f || f.type === 'JSON') {
      problems.push({ path: `query.${name}`, message: 'unknown parameter (filters take schema fields)' });
      continue;
    }
    if (f.type === 'Number') {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) problems.push({ path: `query.${name}`, message: 'must be a number' });
      else filter[name] = n;
    } else if (f.type === 'Boolean') {
      if (raw !== 'true' && raw !== 'false') problems.push({ path: `query.${name}`, message: 'must be true or false' });
      else filter[name] = raw === 'true';
    } else filter[name] = raw;
  }
  return { filter, problems };
}
