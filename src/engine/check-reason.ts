// Why a check names something the model does not have: the reason a typo's deny carries (DESIGN.md section 6.1).
import { near } from './did-you-mean.js';
import { typeOf } from './ids.js';
import type { Model } from './model.js';

export interface CheckReason {
  code: 'UNKNOWN_TYPE' | 'UNKNOWN_PERMISSION';
  message: string;
  /** The nearest name the model has (a type, or an action of the resource's type), when one is near. */
  didYouMean?: string;
}

/**
 * The reason for `action` on `resource` under `model`, or undefined when both names exist. The answer stays a deny
 * (fail closed, stable while a model migrates); the reason makes a misspelt name visible.
 */
export function checkReason(model: Model, action: string, resource: string): CheckReason | undefined {
  const type = typeOf(resource);
  const def = model.get(type);
  if (!def) return withSuggestion('UNKNOWN_TYPE', `no definition for type ${type}`, near(type, model.types.keys()));
  if (def.relations.has(action) || def.permissions.has(action)) return undefined;
  return withSuggestion('UNKNOWN_PERMISSION', `${type} has no relation or permission ${action}`, near(action, model.actionsOf(type)));
}

function withSuggestion(code: CheckReason['code'], message: string, didYouMean: string | undefined): CheckReason {
  return didYouMean ? { code, message: `${message} (did you mean ${didYouMean}?)`, didYouMean } : { code, message };
}
