// What the model says a check or a list needs from the stored tuples and flats: index stores apply it at query time.
import type { Model } from './model.js';

/** An arrow `rel->target` of the object's type: the subjects x of `x#rel@O` lead on to `target` on x. */
export interface ArrowPlan {
  rel: string;
  /** Targets named by the arrows on `rel`: a permission of type(x) is read from x's flat, a relation from x's tuples. */
  targets: string[];
  /**
   * The types of x that lead anywhere: those `rel` admits (or all, with `*`) that have a target as a permission (read
   * from x's flat) or a relation (x's tuples). An arrow tuple from any other type gives nothing, and is not followed.
   */
  types: string[];
}

/**
 * The model's part of can(S, a, O) for subjects of one type and objects of another (DESIGN.md section 5 with the rows
 * left out): O's own keys are relations and grants named here, its references are its arrow tuples read at query time,
 * and only the flats of the objects others inherit from are stored. The index never copies a tuple.
 */
export interface IndexPlan {
  /** The action admits anyone (`*`) on every object of the type. */
  public: boolean;
  /** Relations of type(O) in the action's closure that allow the subject's type: a tuple S#r@O grants it. */
  direct: string[];
  /** Permissions in the closure: a direct grant S#p@O grants it. */
  grants: string[];
  arrows: ArrowPlan[];
  /** Where subjects of the subject's type count in a flat's keys: `Type#relation`, and `Type#permission!` for grants. */
  slots: string[];
}

const NONE: IndexPlan = { public: false, direct: [], grants: [], arrows: [], slots: [] };

const plans = new WeakMap<Model, Map<string, IndexPlan>>();

/**
 * The plan of `action` on objects of `objectType` for subjects of `subjectType` (`holds` answers relations), kept per
 * model: every check asks for one, and a large model's slots take a while to list.
 */
export function indexPlan(model: Model, subjectType: string, objectType: string, action: string): IndexPlan {
  let known = plans.get(model);
  if (!known) {
    known = new Map();
    plans.set(model, known);
  }
  const key = `${subjectType} ${objectType} ${action}`; // type and action names hold no space
  let plan = known.get(key);
  if (!plan) {
    plan = computePlan(model, subjectType, objectType, action);
    // A check of any of a model's types may come; past this many pairs the oldest are forgotten.
    if (known.size >= 10_000) known.delete(known.keys().next().value!);
    known.set(key, plan);
  }
  return plan;
}

function computePlan(model: Model, subjectType: string, objectType: string, action: string): IndexPlan {
  const type = model.get(objectType);
  if (!type?.permissions.has(action)) return NONE;
  const allows = (rel: string) => {
    const allowed = type.relations.get(rel) ?? [];
    return allowed.includes('*') || allowed.includes(subjectType);
  };
  const out = { public: false, direct: new Set<string>(), grants: new Set<string>(), arrows: new Map<string, Set<string>>() };
  const seen = new Set([action]);
  const todo = [action];
  while (todo.length) {
    const perm = todo.pop()!;
    out.grants.add(perm);
    for (const e of type.permissions.get(perm) ?? []) {
      if (e.kind === 'public') out.public = true;
      else if (e.kind === 'rel') { if (allows(e.rel)) out.direct.add(e.rel); }
      else if (e.kind === 'perm') {
        if (!seen.has(e.perm)) {
          seen.add(e.perm);
          todo.push(e.perm);
        }
      }
      else out.arrows.set(e.rel, (out.arrows.get(e.rel) ?? new Set()).add(e.target));
    }
  }
  const slots = model.subjectSlots(subjectType);
  return {
    public: out.public,
    direct: [...out.direct].sort(),
    grants: [...out.grants].sort(),
    arrows: [...out.arrows].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([rel, targets]) => {
      const allowed = type.relations.get(rel) ?? [];
      const types = [...model.types.values()].filter((x) =>
        (allowed.includes('*') || allowed.includes(x.name))
        && [...targets].some((t) => x.permissions.has(t) || x.relations.has(t))
      ).map((x) => x.name).sort();
      return types.length ? [{ rel, targets: [...targets].sort(), types }] : [];
    }),
    slots: [...slots.tuples, ...slots.grants.map((g) => `${g}!`)].sort(),
  };
}

/** The slot of a flat's key `Y#r` (or `Y#p!`): where a subject must count for a tuple (or grant) on Y to give it. */
export const slotOf = (type: string, rel: string) => `${type}#${rel}`;

/** The model's validity rules, for a list of the objects a valid tuple or grant names. */
export function validity(model: Model): { allowed: Record<string, string[]>; perms: string[] } {
  const allowed: Record<string, string[]> = {};
  const perms: string[] = [];
  for (const def of model.types.values()) {
    for (const [rel, types] of def.relations) allowed[slotOf(def.name, rel)] = [...types];
    for (const perm of def.permissions.keys()) perms.push(slotOf(def.name, perm));
  }
  return { allowed, perms };
}

/** A flat's key `Y#r` as the object Y and the relation r (`p!` for a grant key): relation names hold no '#'. */
export function splitKey(key: string): { obj: string; rel: string } {
  const at = key.lastIndexOf('#');
  return { obj: key.slice(0, at), rel: key.slice(at + 1) };
}
