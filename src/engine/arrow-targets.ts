// Arrows that can never match: `r->b` where every type `r` allows is defined and none declares `b` (a typo such as `parent->veiw`).
import { isSlip, near } from './did-you-mean.js';
import type { Definition, DefinitionProblem, Model } from './model.js';

export interface DeadArrow extends DefinitionProblem {
  suggestion?: string;
  /** The target is one slip from a declared name: a typo, refused when saved. */
  refused: boolean;
}

/**
 * Arrows of `def` that no type in `model` (the types in force, `def` itself replacing its own) can satisfy. An
 * allowed type that is not defined yet, or `*`, could still declare the target, so such an arrow is not listed:
 * definitions may refer to types defined later.
 */
export function deadArrows(def: Definition, model: Model): DeadArrow[] {
  const problems: DeadArrow[] = [];
  const actionsOf = (type: string): string[] | undefined => (type === def.name
    ? [...Object.keys(def.relations), ...Object.keys(def.permissions)]
    : model.get(type) && model.actionsOf(type));
  for (const [perm, entries] of Object.entries(def.permissions)) {
    for (const entry of entries) {
      const parts = entry.split('->');
      if (parts.length !== 2) continue;
      const [rel = '', target = ''] = parts;
      const allowed = Object.prototype.hasOwnProperty.call(def.relations, rel) ? def.relations[rel]! : [];
      if (allowed.length === 0 || allowed.includes('*')) continue;
      const declared = allowed.map(actionsOf);
      if (declared.some((a) => a === undefined || a.includes(target))) continue;
      const suggestion = near(target, declared.flatMap((a) => a ?? []));
      problems.push({
        path: `permissions.${perm}`,
        suggestion,
        refused: suggestion !== undefined && isSlip(target, suggestion),
        message: `entry ${entry}: no type ${rel} allows (${allowed.join(', ')}) declares ${target}${suggestion ? ` (did you mean ${rel}->${suggestion}?)` : ''}`,
      });
    }
  }
  return problems;
}

/**
 * The dead arrows refused when a definition is saved: those whose target is one slip from a declared name (`veiw`).
 * Others are kept: the reference semantics store an arrow no type can satisfy and let it grant nothing (the shared
 * conformance case arrow-target-missing-on-some-types, and the fuzzers' `->audit`, two edits from `edit`);
 * `authz validate` warns of them.
 */
export const arrowTargetProblems = (def: Definition, model: Model): DefinitionProblem[] =>
  deadArrows(def, model).filter((p) => p.refused).map(({ path, message }) => ({ path, message }));
