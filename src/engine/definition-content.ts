// A definition's content in a form that is equal exactly when the meaning is: key order and the order of allowed types
// and permission entries (sets, to the evaluator) do not count.
import { canonical } from './canonical.js';
import type { Definition } from './model.js';

const sets = (m: Record<string, string[]>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, [...new Set(v)].sort()]));

export const contentKey = (d: Pick<Definition, 'relations' | 'permissions'>): string => canonical({ relations: sets(d.relations), permissions: sets(d.permissions) });

export const sameContent = (a: Pick<Definition, 'relations' | 'permissions'>, b: Pick<Definition, 'relations' | 'permissions'>): boolean => contentKey(a) === contentKey(b);
