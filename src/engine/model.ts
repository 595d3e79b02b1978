// Resource definitions: the built-ins, validation with named offending entries, and compilation.
import { NAME_RE, tupleText, typeOf, type Tuple } from './ids.js';

export interface Definition {
  name: string;
  relations: Record<string, string[]>;
  permissions: Record<string, string[]>;
}

export type Entry =
  | { kind: 'public' }
  | { kind: 'rel'; rel: string }
  | { kind: 'perm'; perm: string }
  | { kind: 'arrow'; rel: string; target: string };

export interface CompiledType {
  name: string;
  relations: Map<string, string[]>;
  permissions: Map<string, Entry[]>;
  /** Relations used on the left of some `rel->x` entry: their tuples shape the object index. */
  arrowRelations: Set<string>;
}

const teamPerm = (name: string, ...roles: string[]): [string, string[]] => [name, [...roles, `owner->${name}`]];

export const BUILTINS: readonly Definition[] = [
  { name: 'User', relations: {}, permissions: {} },
  {
    name: 'Team',
    relations: { member: ['User'], owner: ['User', 'Team'], readAll: ['User', 'Team'], editAll: ['User', 'Team'] },
    permissions: Object.fromEntries([
      teamPerm('read', 'member', 'owner', 'readAll', 'editAll', 'readAll->read', 'editAll->read'),
      teamPerm('edit', 'owner', 'editAll', 'editAll->edit'),
      teamPerm('delete', 'owner'),
      teamPerm('invite', 'owner', 'editAll'),
      teamPerm('viewMembers', 'member', 'owner', 'readAll', 'editAll'),
      teamPerm('manageMembers', 'owner'),
      teamPerm('viewSubTeams', 'owner', 'readAll', 'editAll'),
      teamPerm('manageSubTeams', 'owner', 'editAll'),
      teamPerm('deleteOwners', 'owner'),
    ]),
  },
];

export const BUILTIN_NAMES = new Set(BUILTINS.map((d) => d.name));

/** The definition an authorization-enabled schema registers. */
export function schemaDefinition(name: string): Definition {
  const subjects = () => ['User', 'Team', '*'];
  return {
    name,
    relations: { owner: subjects(), reader: subjects(), editor: subjects() },
    permissions: {
      read: ['reader', 'reader->read', 'editor', 'editor->read', 'owner', 'owner->read'],
      edit: ['editor', 'editor->edit', 'owner', 'owner->edit'],
      delete: ['owner', 'owner->delete'],
    },
  };
}

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export interface DefinitionProblem {
  path: string;
  message: string;
}

/** Every problem of one definition; `known` (type names) makes unknown subject types an error. */
export function validateDefinition(def: Definition, known?: Set<string>): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  if (!NAME_RE.test(def.name)) add('name', `bad type name ${JSON.stringify(def.name)}`);
  for (const [rel, allowed] of Object.entries(def.relations)) {
    if (!NAME_RE.test(rel)) add(`relations.${rel}`, `bad relation name ${JSON.stringify(rel)}`);
    for (const t of allowed) {
      if (t === '*') continue;
      if (!NAME_RE.test(t)) add(`relations.${rel}`, `bad subject type ${JSON.stringify(t)}`);
      else if (known && !known.has(t) && t !== def.name) add(`relations.${rel}`, `unknown subject type ${t}`);
    }
  }
  for (const [perm, entries] of Object.entries(def.permissions)) {
    if (!NAME_RE.test(perm)) add(`permissions.${perm}`, `bad permission name ${JSON.stringify(perm)}`);
    if (own(def.relations, perm)) add(`permissions.${perm}`, `${perm} is both a relation and a permission`);
    for (const e of entries) {
      const err = entryProblem(e, def);
      if (err) add(`permissions.${perm}`, err);
    }
  }
  return problems;
}

function entryProblem(entry: string, def: Definition): string | null {
  if (entry === '*') return null;
  const parts = entry.split('->');
  if (parts.length === 2) {
    const [rel = '', target = ''] = parts;
    if (!own(def.relations, rel)) return `entry ${entry}: ${rel} is not a relation of ${def.name}`;
    return NAME_RE.test(target) ? null : `entry ${entry}: bad arrow target`;
  }
  if (parts.length > 2) return `bad entry ${entry}`;
  return own(def.relations, entry) || own(def.permissions, entry) ? null : `entry ${entry}: unknown relation or permission`;
}

export function compile(def: Definition): CompiledType {
  const relations = new Map(Object.entries(def.relations));
  const permissions = new Map<string, Entry[]>();
  const arrowRelations = new Set<string>();
  for (const [perm, entries] of Object.entries(def.permissions)) {
    permissions.set(perm, entries.map((e): Entry => {
      if (e === '*') return { kind: 'public' };
      const [rel = '', target] = e.split('->');
      if (target !== undefined) {
        arrowRelations.add(rel);
        return { kind: 'arrow', rel, target };
      }
      return relations.has(e) ? { kind: 'rel', rel: e } : { kind: 'perm', perm: e };
    }));
  }
  return { name: def.name, relations, permissions, arrowRelations };
}

/** The compiled type system: built-ins plus stored definitions (a stored one replaces a built-in). */
export class Model {
  readonly types: Map<string, CompiledType>;
  constructor(defs: Iterable<Definition>) {
    this.types = new Map(BUILTINS.map((d) => [d.name, compile(d)]));
    for (const d of defs) this.types.set(d.name, compile(d));
  }
  get(type: string): CompiledType | undefined {
    return this.types.get(type);
  }

  /** Why a stored tuple does not count under this model, or null when it counts. */
  tupleProblem(t: Tuple): { code: 'UNKNOWN_TYPE' | 'RELATION_NOT_DEFINED' | 'RELATION_NOT_ALLOWED'; message: string } | null {
    const def = this.types.get(typeOf(t.resource));
    if (!def) return { code: 'UNKNOWN_TYPE', message: `no definition for type ${typeOf(t.resource)}` };
    const subjectType = typeOf(t.subject);
    const allowed = def.relations.get(t.relation);
    if (!allowed) return { code: 'RELATION_NOT_DEFINED', message: `${def.name} has no relation ${t.relation}` };
    if (!allowed.includes('*') && !allowed.includes(subjectType)) {
      return { code: 'RELATION_NOT_ALLOWED', message: `${def.name}.${t.relation} does not allow subjects of type ${subjectType}` };
    }
    return null;
  }
  /**
   * Why a tuple may not be written: exactly when it would not count. An undefined subject type is
   * accepted (as the reference evaluator does) when the relation allows it, e.g. through `*`.
   */
  writeProblem(t: Tuple): ReturnType<Model['tupleProblem']> {
    const problem = this.tupleProblem(t);
    if (!problem) return null;
    // A tuple written back to front is a common slip: say so when the other order would be stored.
    const reversed = { subject: t.resource, relation: t.relation, resource: t.subject };
    if (this.tupleProblem(reversed) !== null) return problem;
    return { ...problem, message: `${problem.message}; subject and resource may be swapped: did you mean ${tupleText(reversed)}?` };
  }
  isValid = (t: Tuple): boolean => this.tupleProblem(t) === null;
  isValidGrant = (t: Tuple): boolean => this.grantProblem(t) === null;

  /** Every action name of a type: its relations and permissions. */
  actionsOf(type: string): string[] {
    const def = this.types.get(type);
    return def ? [...def.relations.keys(), ...def.permissions.keys()] : [];
  }

  /** Where subjects of `type` count: `Type#relation` of every relation that allows them, and `Type#permission` for grants. */
  subjectSlots(type: string): { tuples: string[]; grants: string[] } {
    const tuples: string[] = [];
    const grants: string[] = [];
    for (const def of this.types.values()) {
      for (const [rel, allowed] of def.relations) if (allowed.includes('*') || allowed.includes(type)) tuples.push(`${def.name}#${rel}`);
      for (const perm of def.permissions.keys()) grants.push(`${def.name}#${perm}`);
    }
    return { tuples, grants };
  }

  grantProblem(t: Tuple): { code: 'UNKNOWN_TYPE' | 'PERMISSION_NOT_DEFINED'; message: string } | null {
    const def = this.types.get(typeOf(t.resource));
    if (!def) return { code: 'UNKNOWN_TYPE', message: `no definition for type ${typeOf(t.resource)}` };
    if (!def.permissions.has(t.relation)) return { code: 'PERMISSION_NOT_DEFINED', message: `${def.name} has no permission ${t.relation}` };
    return null;
  }
}

/**
 * The types whose decisions can change when `type`'s definition changes: the type itself, and every type that
 * inherits through an arrow whose relation admits it (or `*`), transitively. Other types' rows and flats never
 * read `type`'s definition.
 */
export function typesDependingOn(model: Model, type: string): Set<string> {
  const out = new Set([type]);
  for (let grew = true; grew;) {
    grew = false;
    for (const def of model.types.values()) {
      if (out.has(def.name)) continue;
      const inherits = [...def.arrowRelations].some((rel) => (def.relations.get(rel) ?? []).some((t) => t === '*' || out.has(t)));
      if (inherits) {
        out.add(def.name);
        grew = true;
      }
    }
  }
  return out;
}
