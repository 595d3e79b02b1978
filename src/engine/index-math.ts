// Index maths (DESIGN.md section 5): actor keys, object rows with references, flattened key sets.
import { typeOf, type Tuple } from './ids.js';
import type { Model } from './model.js';

/**
 * A key is what a subject can hold: `X#r` (a valid tuple S#r@X) or `X#p!` (a direct grant S#p@X).
 * An object row OI(O,a) holds O's own keys for action a, a public flag and references `X#b` to the
 * flattened sets of the objects it inherits from. can(S,a,O) = S == O, or the row or a referenced
 * flat set is public, or AI(S) meets the row's keys or a referenced flat set's keys.
 */
export const relationKey = (object: string, relation: string) => `${object}#${relation}`;
export const grantKey = (object: string, permission: string) => `${object}#${permission}!`;

export interface KeySet { keys: string[]; public: boolean }
export interface ObjectRow extends KeySet { refs: string[] }

/** Subjects of the valid tuples `X#relation@object` (the reader filters by the model). */
export interface ArrowReader {
  subjects(object: string, relation: string): Promise<string[]>;
}

/** AI(S): the keys S holds, from its valid tuples and grants. */
export function actorKeys(model: Model, tuples: Tuple[], grants: Tuple[]): string[] {
  const keys = new Set<string>();
  for (const t of tuples) if (model.isValid(t)) keys.add(relationKey(t.resource, t.relation));
  for (const g of grants) if (model.isValidGrant(g)) keys.add(grantKey(g.resource, g.relation));
  return [...keys].sort();
}

interface Expansion {
  keys: Set<string>;
  public: boolean;
  /** Arrow hops to (X, b) where b is a permission of type(X). */
  hops: Array<[string, string]>;
}

/** The same-object closure of (O, a): own keys, public flag and arrow hops. */
async function expand(model: Model, reader: ArrowReader, object: string, action: string): Promise<Expansion> {
  const out: Expansion = { keys: new Set(), public: false, hops: [] };
  const type = model.get(typeOf(object));
  if (!type) return out;
  if (type.relations.has(action)) { out.keys.add(relationKey(object, action)); return out; }
  if (!type.permissions.has(action)) return out;
  const seen = new Set([action]);
  const todo = [action];
  while (todo.length) {
    const perm = todo.pop()!;
    out.keys.add(grantKey(object, perm));
    for (const e of type.permissions.get(perm) ?? []) {
      if (e.kind === 'public') out.public = true;
      else if (e.kind === 'rel') out.keys.add(relationKey(object, e.rel));
      else if (e.kind === 'perm') { if (!seen.has(e.perm)) { seen.add(e.perm); todo.push(e.perm); } }
      else {
        for (const x of await reader.subjects(object, e.rel)) {
          const xType = model.get(typeOf(x));
          if (xType?.permissions.has(e.target)) out.hops.push([x, e.target]);
          else if (xType?.relations.has(e.target)) out.keys.add(relationKey(x, e.target));
        }
      }
    }
  }
  return out;
}

/** OI(O,a) as stored for a plain object: own keys plus references to flat sets. */
export async function objectRow(model: Model, reader: ArrowReader, object: string, action: string): Promise<ObjectRow> {
  const e = await expand(model, reader, object, action);
  const refs = [...new Set(e.hops.map(([x, b]) => relationKey(x, b)))].sort();
  return { keys: [...e.keys].sort(), public: e.public, refs };
}

/** The fully flattened OI(X,b): the least fixed point, for objects that others inherit from. */
export async function flatSet(model: Model, reader: ArrowReader, object: string, action: string): Promise<KeySet> {
  const keys = new Set<string>();
  let isPublic = false;
  const seen = new Set([relationKey(object, action)]);
  const todo: Array<[string, string]> = [[object, action]];
  while (todo.length) {
    const [o, a] = todo.pop()!;
    const e = await expand(model, reader, o, a);
    e.keys.forEach((k) => keys.add(k));
    isPublic ||= e.public;
    for (const [x, b] of e.hops) {
      const id = relationKey(x, b);
      if (!seen.has(id)) { seen.add(id); todo.push([x, b]); }
    }
  }
  return { keys: [...keys].sort(), public: isPublic };
}

/** The decision from index records alone (what the Cypher check computes). */
export function decide(actor: Iterable<string>, row: ObjectRow | null, flats: Array<KeySet | null>): boolean {
  if (!row) return false;
  if (row.public || flats.some((f) => f?.public)) return true;
  const held = new Set(actor);
  return row.keys.some((k) => held.has(k)) || flats.some((f) => f?.keys.some((k) => held.has(k)));
}

/** Whether `relation` on `resourceType` feeds some arrow, so its tuples shape object rows. */
export const isArrowRelation = (model: Model, resourceType: string, relation: string) =>
  model.get(resourceType)?.arrowRelations.has(relation) ?? false;
