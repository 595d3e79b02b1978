// Index maths (DESIGN.md section 5): actor keys, object rows with references, flattened key sets. Pure and synchronous.
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

export interface KeySet {
  keys: string[];
  public: boolean;
}
export interface ObjectRow extends KeySet {
  refs: string[];
}
/** A flattened set and the objects whose tuples it was computed from (a change on any of them changes it). */
export interface FlatSet extends KeySet {
  deps: string[];
}

/**
 * Subjects of the valid tuples `X#relation@object`, from tuples the caller has already loaded. The service
 * fetches them in batches (see `arrowSources`), so computing never waits on a store.
 */
export interface TupleView {
  subjects(object: string, relation: string): string[];
  /**
   * Whether some valid grant `S#perm@object` exists. When the view knows grants, object rows carry a grant key only
   * where one exists (nobody holds the others); flats always carry them, so grants never change a flat.
   */
  granted?(object: string, perm: string): boolean;
}

/** The key a tuple gives its subject, or null when the model does not count the tuple. */
export const tupleKey = (model: Model, t: Tuple): string | null => (model.isValid(t) ? relationKey(t.resource, t.relation) : null);
export const grantKeyOf = (model: Model, g: Tuple): string | null => (model.isValidGrant(g) ? grantKey(g.resource, g.relation) : null);

/** AI(S): the keys S holds, from its valid tuples and grants. */
export function actorKeys(model: Model, tuples: Tuple[], grants: Tuple[]): string[] {
  const keys = new Set<string>();
  for (const t of tuples) {
    const k = tupleKey(model, t);
    if (k) keys.add(k);
  }
  for (const g of grants) {
    const k = grantKeyOf(model, g);
    if (k) keys.add(k);
  }
  return [...keys].sort();
}

interface Expansion {
  keys: Set<string>;
  public: boolean;
  /** Arrow hops to (X, b) where b is a permission of type(X). */
  hops: Array<[string, string]>;
}

/**
 * The same-object closure of (O, a): own keys, public flag and arrow hops. Reads only tuples on O. `grantedOnly`: a
 * grant key only where the view has a grant (object rows); otherwise every permission's (flats).
 */
function expand(model: Model, view: TupleView, object: string, action: string, grantedOnly = false): Expansion {
  const out: Expansion = { keys: new Set(), public: false, hops: [] };
  const type = model.get(typeOf(object));
  if (!type) return out;
  if (type.relations.has(action)) {
    out.keys.add(relationKey(object, action));
    return out;
  }
  if (!type.permissions.has(action)) return out;
  const seen = new Set([action]);
  const todo = [action];
  while (todo.length) {
    const perm = todo.pop()!;
    if (!grantedOnly || view.granted?.(object, perm)) out.keys.add(grantKey(object, perm));
    for (const e of type.permissions.get(perm) ?? []) {
      if (e.kind === 'public') out.public = true;
      else if (e.kind === 'rel') out.keys.add(relationKey(object, e.rel));
      else if (e.kind === 'perm') {
        if (!seen.has(e.perm)) {
          seen.add(e.perm);
          todo.push(e.perm);
        }
      }
      else {
        for (const x of view.subjects(object, e.rel)) {
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
export function objectRow(model: Model, view: TupleView, object: string, action: string): ObjectRow {
  const e = expand(model, view, object, action, view.granted !== undefined);
  const refs = [...new Set(e.hops.map(([x, b]) => relationKey(x, b)))].sort();
  return { keys: [...e.keys].sort(), public: e.public, refs };
}

/** The fully flattened OI(X,b): the least fixed point, for objects that others inherit from. */
export function flatSet(model: Model, view: TupleView, object: string, action: string): FlatSet {
  const keys = new Set<string>();
  const deps = new Set<string>();
  let isPublic = false;
  const seen = new Set([relationKey(object, action)]);
  const todo: Array<[string, string]> = [[object, action]];
  while (todo.length) {
    const [o, a] = todo.pop()!;
    deps.add(o);
    const e = expand(model, view, o, a);
    e.keys.forEach((k) => keys.add(k));
    isPublic ||= e.public;
    for (const [x, b] of e.hops) {
      const id = relationKey(x, b);
      if (!seen.has(id)) {
        seen.add(id);
        todo.push([x, b]);
      }
    }
  }
  return { keys: [...keys].sort(), public: isPublic, deps: [...deps].sort() };
}

/**
 * Objects whose tuples a flat set of `object` may read next: the subjects of its arrow-relation tuples.
 * The service loads a closure level by level with this, one batched query per level.
 */
export function arrowSources(model: Model, view: TupleView, object: string): string[] {
  const type = model.get(typeOf(object));
  if (!type) return [];
  const out: string[] = [];
  for (const rel of type.arrowRelations) out.push(...view.subjects(object, rel));
  return out;
}

/**
 * Whether other objects can inherit through `object` (it is the subject X of a valid X#r@O whose arrow
 * `r->b` names a permission b of type(X)): then it needs flattened sets.
 */
export function isFlatSource(model: Model, t: Tuple): boolean {
  if (!model.isValid(t)) return false;
  const on = model.get(typeOf(t.resource));
  const x = model.get(typeOf(t.subject));
  if (!on || !x) return false;
  for (const entries of on.permissions.values()) {
    for (const e of entries) if (e.kind === 'arrow' && e.rel === t.relation && x.permissions.has(e.target)) return true;
  }
  return false;
}

/** The decision from index records alone (what the Cypher check computes). */
export function decide(actor: Iterable<string>, row: ObjectRow | null, flats: Array<KeySet | null>): boolean {
  if (!row) return false;
  if (row.public || flats.some((f) => f?.public)) return true;
  const held = new Set(actor);
  return row.keys.some((k) => held.has(k)) || flats.some((f) => f?.keys.some((k) => held.has(k)));
}

/** Whether `relation` on `resourceType` feeds some arrow, so its tuples shape object rows. */
export const isArrowRelation = (model: Model, resourceType: string, relation: string) => model.get(resourceType)?.arrowRelations.has(relation) ?? false;

/**
 * A TupleView over tuples in memory (valid ones only), indexed by `object#relation`. With `grants` (even empty) it
 * knows grants too: those given and those added later.
 */
export function tupleView(model: Model, tuples: Iterable<Tuple>, grants?: Iterable<Tuple>): TupleView & { add(t: Tuple): void; addGrant(g: Tuple): void } {
  const by = new Map<string, string[]>();
  const seen = new Set<string>();
  const granted = grants === undefined ? null : new Set<string>();
  const addGrant = (g: Tuple) => {
    if (granted && model.isValidGrant(g)) granted.add(relationKey(g.resource, g.relation));
  };
  const add = (t: Tuple) => {
    const text = `${t.subject}#${t.relation}@${t.resource}`;
    if (seen.has(text) || !model.isValid(t)) return;
    seen.add(text);
    const k = relationKey(t.resource, t.relation);
    const list = by.get(k);
    if (list) list.push(t.subject); else by.set(k, [t.subject]);
  };
  for (const t of tuples) add(t);
  for (const g of grants ?? []) addGrant(g);
  return {
    add,
    addGrant,
    subjects: (object, relation) => by.get(relationKey(object, relation)) ?? [],
    ...(granted ? { granted: (object: string, perm: string) => granted.has(relationKey(object, perm)) } : {}),
  };
}

const inheritedTypes = new WeakMap<Model, Map<string, boolean>>();

/** Whether objects of `type` can lie in a flat's closure: an arrow admits them (or `*`) and names a permission of theirs. */
export function isInherited(model: Model, type: string): boolean {
  let known = inheritedTypes.get(model);
  if (!known) {
    known = new Map();
    inheritedTypes.set(model, known);
  }
  const hit = known.get(type);
  if (hit !== undefined) return hit;
  const own = model.get(type);
  let found = false;
  for (const def of model.types.values()) {
    for (const entries of def.permissions.values()) {
      for (const e of entries) {
        if (e.kind !== 'arrow') continue;
        const allowed = def.relations.get(e.rel) ?? [];
        if ((allowed.includes('*') || allowed.includes(type)) && own?.permissions.has(e.target)) found = true;
      }
    }
  }
  known.set(type, found);
  return found;
}

/**
 * Whether a tuple can change flattened sets: an arrow tuple on an object that others inherit from (flats read its
 * arrow tuples), or one that makes its subject a source of inheritance (its flats are then written). Any other tuple
 * is only an edge of the projection: checks read it where it is.
 */
export const changesFlats = (model: Model, t: Tuple): boolean =>
  isArrowRelation(model, typeOf(t.resource), t.relation)
  && (isFlatSource(model, t) || isInherited(model, typeOf(t.resource)));
