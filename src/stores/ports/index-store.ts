// The precomputed index (the flats of the objects others inherit from, by generation) that answers checks and lists
// together with the projection's tuples.
import type { IndexPlan } from '../../engine/index-plan.js';

/** A flattened set F(obj, perm): the keys (`Y#r`, or `Y#p!` for a grant) whose holders have `perm` on `obj`. */
export interface FlatRecord {
  id: string;
  obj: string;
  perm: string;
  public: boolean;
  keys: string[];
  deps: string[];
  hash: string;
}
export interface IndexRecords {
  gen: number;
  /** O's arrow tuples (subject x, relation) with the flats of x they lead to, at most 1,000. */
  arrows: Array<{ x: string; rel: string; flats: Array<{ perm: string; public: boolean; keys: string[] }> }>;
  /** S's direct keys with their slots (`Type#r`), at most 1,000; null when S is named by no tuple or grant. */
  held: Array<{ key: string; slot: string }> | null;
}
/** The model's validity rules for a list of every named object: `Type#relation` -> subject types (or '*'), `Type#permission`. */
export interface Validity {
  allowed: Record<string, string[]>;
  perms: string[];
}

/**
 * The precomputed index, by generation (every write names its generation; `gen` 0 never exists), read together with
 * the projection's TUPLE and GRANT edges (the subjects' direct keys, never copied). Reads take the model's plan
 * (src/engine/index-plan.ts) for the pair of types they ask about.
 */
export interface IndexStore {
  meta(): Promise<{ gen: number; building: number | null }>;
  /**
   * True while the index is in an older format (until a hard rebuild switches generation), after dropping that format's
   * nodes: the caller then requests the rebuild.
   */
  migrate(): Promise<boolean>;
  setBuilding(gen: number | null): Promise<void>;
  switchGeneration(gen: number): Promise<void>;
  /** can(S, a, O) for a permission `a`, with the plan of a on type(O) for subjects of type(S). */
  check(subject: string, object: string, plan: IndexPlan): Promise<boolean>;
  records(subject: string, object: string, plan: IndexPlan): Promise<IndexRecords>;
  /**
   * Writes the flats whose content changed and returns their ids; an owner named here loses its flats of permissions
   * not given for it (its type no longer has them), so callers give every flat of an owner at once.
   */
  putFlats(gen: number, flats: FlatRecord[]): Promise<string[]>;
  /** Objects with an arrow tuple from the owner of any of these flats, at most `limit`. */
  objectsUnder(gen: number, flatIds: string[], limit: number): Promise<string[]>;
  /** Objects owning a flat that depends on any of `objects` (including the objects themselves). */
  flatsDependingOn(gen: number, objects: string[]): Promise<string[]>;
  /** Which of `objects` already have flats. */
  flattened(gen: number, objects: string[]): Promise<Set<string>>;
  /** One page, in id order, of the objects of `type` on which `subject` has the action of `plan`. */
  listObjects(subject: string, type: string, plan: IndexPlan, skip: number, limit: number): Promise<string[]>;
  countObjects(subject: string, type: string, plan: IndexPlan, pivot: string): Promise<ListCount>;
  /** One page, in id order, of the objects of `type` that a valid tuple or grant names (an action that admits anyone). */
  listNamed(type: string, validity: Validity, skip: number, limit: number): Promise<string[]>;
  countNamed(type: string, validity: Validity, pivot: string): Promise<ListCount>;
  /** One page, in id order, of the subjects of `subjectType` with the action of `plan` on `object`. */
  listSubjects(object: string, subjectType: string, plan: IndexPlan, skip: number, limit: number): Promise<string[]>;
  /** Their count, and whether a flat that `object`'s arrow tuples lead to admits anyone. */
  countSubjects(object: string, subjectType: string, plan: IndexPlan, pivot: string): Promise<ListCount & { public: boolean }>;
  /** Whether the tuple `subject#relation@object` is stored (the caller asks the model whether it counts). */
  holds(subject: string, object: string, relation: string): Promise<boolean>;
  /** One page, in id order, of the objects of `type` on which `subject` has a tuple with `relation`. */
  listHeld(subject: string, type: string, relation: string, skip: number, limit: number): Promise<string[]>;
  countHeld(subject: string, type: string, relation: string, pivot: string): Promise<ListCount>;
  /** One page, in id order, of the subjects of `subjectType` with a tuple `relation` on `object`. */
  listHolders(object: string, relation: string, subjectType: string, skip: number, limit: number): Promise<string[]>;
  countHolders(object: string, relation: string, subjectType: string, pivot: string): Promise<ListCount>;
  dropGeneration(gen: number): Promise<number>;
}
/** A list's length, how many of its ids sort before `pivot`, and whether `pivot` is one of them. */
export interface ListCount {
  count: number;
  below: number;
  has: boolean;
}
