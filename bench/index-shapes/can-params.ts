// The parameters the flat-nodes and leopard statements take, derived from the model in Node for (subject type, action, type).
import type { Model } from '../../src/engine/model.js';

export interface CanParams {
  /** Relations of the object's type in the action's closure whose tuples from a subject of this type count. */
  direct: string[];
  /** Permissions in the closure: a direct grant of any of them counts. */
  grants: string[];
  /** Whether the closure admits anyone. */
  public: boolean;
  /** Arrow relations in the closure. */
  arrowRels: string[];
  /** rel -> the arrow targets that are permissions of some subject type the relation allows (read from x's flat). */
  arrows: Record<string, string[]>;
  /** Every permission in `arrows`: a list filters flats on it before expanding their sources' tuples. */
  targets: string[];
  /** rel -> the arrow targets that are relations of some allowed subject type (s holds a tuple on x). */
  relArrows: Record<string, string[]>;
  /** rel -> the subject types the relation allows that have such a target: an arrow tuple from another type does not count. */
  arrowTypes: Record<string, string[]>;
  /** `Type#relation` where subjects of this type count (tuples), and `Type#permission` (grants, whose slot drops the `!`). */
  slots: string[];
}

const add = (m: Record<string, string[]>, k: string, v: string) => {
  if (!(m[k] ??= []).includes(v)) m[k].push(v);
};

/** The closure of `action` over the permission entries of `type`, read as parameters of one statement. */
export function canParams(model: Model, subjectType: string, action: string, type: string): CanParams {
  const out: CanParams = { direct: [], grants: [], public: false, arrowRels: [], arrows: {}, targets: [], relArrows: {}, arrowTypes: {}, slots: [] };
  const slots = model.subjectSlots(subjectType);
  out.slots = [...slots.tuples, ...slots.grants];
  const def = model.get(type);
  if (!def) return out;
  const allows = (rel: string, t: string) => {
    const a = def.relations.get(rel) ?? [];
    return a.includes('*') || a.includes(t);
  };
  if (def.relations.has(action)) {
    if (allows(action, subjectType)) out.direct.push(action);
    return out;
  }
  const seen = new Set([action]);
  const todo = [action];
  while (todo.length) {
    const perm = todo.pop()!;
    out.grants.push(perm);
    for (const e of def.permissions.get(perm) ?? []) {
      if (e.kind === 'public') out.public = true;
      else if (e.kind === 'rel') { if (allows(e.rel, subjectType) && !out.direct.includes(e.rel)) out.direct.push(e.rel); }
      else if (e.kind === 'perm') {
        if (!seen.has(e.perm)) {
          seen.add(e.perm);
          todo.push(e.perm);
        }
      }
      else arrow(model, def.relations.get(e.rel) ?? [], e.rel, e.target, out);
    }
  }
  return out;
}

/** One `rel->target` entry: which subject types of `rel` give the target as a permission or as a relation. */
function arrow(model: Model, allowed: string[], rel: string, target: string, out: CanParams) {
  const types = allowed.includes('*') ? [...model.types.keys()] : allowed;
  for (const t of types) {
    const x = model.get(t);
    if (x?.permissions.has(target)) {
      add(out.arrows, rel, target);
      add(out.arrowTypes, rel, t);
      if (!out.targets.includes(target)) out.targets.push(target);
    }
    else if (x?.relations.has(target)) {
      add(out.relArrows, rel, target);
      add(out.arrowTypes, rel, t);
    }
    else continue;
    if (!out.arrowRels.includes(rel)) out.arrowRels.push(rel);
  }
}
