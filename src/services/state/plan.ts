// Planning a state import: the document validated whole, and what it would change, before anything is applied.
import { canonical } from '../../engine/canonical.js';
import { isWellFormed, tupleText } from '../../engine/ids.js';
import { arrowTargetProblems } from '../../engine/arrow-targets.js';
import { sameContent } from '../../engine/definition-content.js';
import { BUILTIN_NAMES, Model, schemaDefinition, validateDefinition, type Definition } from '../../engine/model.js';
import { AppError, type ErrorCode } from '../../errors.js';
import type { DefinitionStore } from '../../stores/ports/definitions.js';
import type { Settings } from '../config/settings.js';
import { SERVICE_TYPES } from '../module-types.js';
import type { Schemas } from '../database/schemas.js';
import type { StateHeader } from './document.js';
import { asItem, type Item } from './items.js';

/** `replaceBuiltin`: the caller replaces built-in and module types knowingly (else such a change is refused, 409). */
export interface ImportOptions {
  dryRun: boolean;
  prune: boolean;
  replaceBuiltin?: boolean;
}
export interface Changes {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}
export interface Problem {
  path?: string;
  line?: number;
  code?: ErrorCode;
  message: string;
  schema?: string;
  module?: string;
  version?: number;
}
export interface Plan {
  header: StateHeader;
  model: Model;
  startRevision: number;
  resources: Changes;
  schemas: Changes;
  config: Changes;
  notes: string[];
  definitions: Map<string, Definition>;
}
export interface PlanDeps {
  store: DefinitionStore;
  schemas: Schemas;
  settings: Settings;
  latest(): Promise<number>;
}

type Json = Record<string, unknown>;

/** Problems listed in a refusal (the message says how many there were). */
export const MAX_PROBLEMS = 20;

const changes = (): Changes => ({ created: [], updated: [], unchanged: [], removed: [] });

export const isModel = (p: Problem) => p.code !== undefined && p.code !== 'VALIDATION_FAILED';
/** What the definitions are, in a form that compares equal when they are the same. */
export const definitionsKey = (defs: Map<string, Definition>) => canonical([...defs.values()].sort((a, b) => a.name.localeCompare(b.name)));

/**
 * Refuses the import. Lines that are not well-formed are a 400; when every problem is one the model rejects
 * (a relation not declared, a type unknown), the answer is the 422 that a single write of it would get.
 */
export function refuse(what: string, problems: Problem[], total = problems.length, allModel = problems.every(isModel)): never {
  const listed = problems.slice(0, MAX_PROBLEMS);
  const code = allModel ? problems[0]!.code! : 'VALIDATION_FAILED';
  const message = `${what}; nothing was imported${total > listed.length ? ` (${total} problems; the first ${listed.length} listed)` : ''}`;
  throw new AppError(code, message, listed);
}

export function itemProblem(model: Model, item: Item): { code: ErrorCode; message: string } | null {
  if (!isWellFormed(item.t)) return { code: 'VALIDATION_FAILED', message: 'subject and resource must be Type:id and the relation a name' };
  const p = item.grant ? model.grantProblem(item.t) : model.writeProblem(item.t);
  return p ? { code: p.code, message: `${tupleText(item.t)}: ${p.message}` } : null;
}

/** The tuples and grants a header (or JSON document) carries itself, validated against the model the import leaves. */
export function inline(doc: StateHeader, model: Model): Item[] {
  const tuples = (doc.relations ?? []).map(asItem);
  const items = [...tuples, ...(doc.grants ?? []).map(asItem)];
  const problems: Problem[] = [];
  items.forEach((item, i) => {
    const p = itemProblem(model, item);
    if (p) problems.push({ path: i < tuples.length ? `relations.${i}` : `grants.${i - tuples.length}`, ...p });
  });
  if (problems.length) refuse('Some tuples or grants are not valid', problems);
  return items;
}

/** Validates the header's sections and works out what they change; the model is the one the import leaves in place. */
export async function plan(deps: PlanDeps, header: StateHeader, opts: ImportOptions): Promise<Plan> {
  const startRevision = await deps.latest();
  const versions = new Map((await deps.store.definitions()).map((d) => [d.name, d]));
  const current = new Map([...versions].map(([name, d]) => [name, d as Definition]));
  const plan: Plan = {
    header,
    startRevision,
    model: new Model([]),
    resources: changes(),
    schemas: changes(),
    config: changes(),
    notes: [],
    definitions: new Map(current),
  };
  const imported = importedDefinitions(header);
  const schemaList = header.schemas ?? [];
  const stored = (await deps.schemas.export()).schemas;
  const authorized = (s: { serviceOptions?: unknown }) => (s.serviceOptions as { authorization?: { enabled?: boolean } } | undefined)?.authorization?.enabled === true;
  // Types that schemas with authorization on register: the document's and those stored (schemas are never removed).
  const registered = new Set([...schemaList.filter(authorized).map((s) => s.name), ...stored.filter(authorized).map((s) => s.name)]);
  if (header.schemas) {
    Object.assign(plan.schemas, await deps.schemas.plan(schemaList, new Set(imported.keys())));
    const kept = new Set(schemaList.map((s) => s.name));
    const missing = stored.map((s) => s.name).filter((n) => !kept.has(n));
    if (opts.prune && missing.length) plan.notes.push(`schemas are never pruned (there is no schema deletion); kept: ${missing.join(', ')}`);
  }
  for (const name of registered) {
    if (plan.definitions.has(name)) continue;
    plan.definitions.set(name, schemaDefinition(name));
    if (!imported.has(name)) plan.resources.created.push(name);
  }
  if (header.resources) {
    // Replacing what a stored schema's authorization registered is refused unless the document carries that schema
    // too: otherwise a type of the same name would take the schema's documents from their owners unasked.
    const carried = new Set(schemaList.map((s) => s.name));
    const guarded = new Set(stored.filter(authorized).map((s) => s.name).filter((n) => !carried.has(n)));
    const clashes = definitionClashes(header, versions, guarded, opts);
    if (clashes.length) refuse('Some resource definitions would replace those database schemas or modules registered', clashes);
    planResources(plan, imported, current, registered, opts);
  }
  if (header.config) await planConfig(plan, deps, header.config, opts);
  plan.model = new Model(plan.definitions.values());
  // Arrows are judged against the model the import leaves in place, so definitions may refer to each other in any order.
  const problems: Problem[] = [];
  for (const [i, r] of (header.resources ?? []).entries()) {
    for (const p of arrowTargetProblems(r, plan.model)) problems.push({ path: `resources.${i}.${p.path}`, code: 'INVALID_DEFINITION', message: p.message });
  }
  if (problems.length) refuse('Some resource definitions are not valid', problems);
  return plan;
}

/** The document's resource definitions by name, each valid on its own and named once (refused otherwise). */
function importedDefinitions(header: StateHeader): Map<string, Definition> {
  const problems: Problem[] = [];
  const imported = new Map<string, Definition>();
  for (const [i, r] of (header.resources ?? []).entries()) {
    const def = { name: r.name, relations: r.relations, permissions: r.permissions };
    if (imported.has(def.name)) problems.push({ path: `resources.${i}`, code: 'INVALID_DEFINITION', message: `${def.name} appears twice` });
    for (const p of validateDefinition(def)) problems.push({ path: `resources.${i}.${p.path}`, code: 'INVALID_DEFINITION', message: p.message });
    imported.set(def.name, def);
  }
  if (problems.length) refuse('Some resource definitions are not valid', problems);
  return imported;
}

/** Definitions that would replace a service's own resource type or one a guarded schema registered. */
function definitionClashes(header: StateHeader, versions: Map<string, Definition & { version: number }>, guarded: Set<string>, opts: ImportOptions): Problem[] {
  const clashes: Problem[] = [];
  for (const [i, r] of (header.resources ?? []).entries()) {
    const before = versions.get(r.name);
    const service = SERVICE_TYPES.get(r.name);
    if (service && !opts.replaceBuiltin && !sameContent(before ?? service.definition, r)) {
      clashes.push({ path: `resources.${i}`, code: 'MODULE_DEFINITION', module: service.owner, version: before?.version, message: [
        `${r.name}: the ${service.owner} module's resource type, and replacing it breaks what that module relies on (its relations`,
        'and permissions); to replace it anyway, import with ?replaceBuiltin=true (authz push --replace-builtin), or choose another name',
      ].join(' ') });
      continue;
    }
    if (!before || !guarded.has(r.name) || sameContent(before, r)) continue;
    clashes.push({ path: `resources.${i}`, code: 'SCHEMA_DEFINITION', schema: r.name, version: before.version, message: [
      `${r.name}: schema ${r.name} registered this definition (authorization enabled), and replacing it changes who may use its documents;`,
      `to replace it, carry schema ${r.name} in the same document (schemas), or send PATCH /authorization/resources/${r.name} with version ${before.version + 1}`,
    ].join(' ') });
  }
  return clashes;
}

/** Sorts the imported definitions into created, updated and unchanged; with prune, removes the others one may remove. */
function planResources(plan: Plan, imported: Map<string, Definition>, current: Map<string, Definition>, registered: Set<string>, opts: ImportOptions): void {
  for (const [name, def] of imported) {
    const before = current.get(name);
    const list = !before ? plan.resources.created
      : sameContent(before, def) ? plan.resources.unchanged : plan.resources.updated;
    list.push(name);
    plan.definitions.set(name, def);
  }
  if (!opts.prune) return;
  for (const name of current.keys()) {
    if (imported.has(name) || BUILTIN_NAMES.has(name) || registered.has(name) || SERVICE_TYPES.has(name)) continue;
    plan.resources.removed.push(name);
    plan.definitions.delete(name);
  }
}

async function planConfig(plan: Plan, deps: PlanDeps, config: NonNullable<StateHeader['config']>, opts: ImportOptions): Promise<void> {
  const overrides = await deps.settings.overrides() as Record<string, Json | undefined>;
  for (const [name, value] of Object.entries(config)) {
    deps.settings.check(name, value, `config.${name}`);
    (canonical(overrides[name] ?? {}) === canonical(value) ? plan.config.unchanged : overrides[name] ? plan.config.updated : plan.config.created).push(name);
  }
  if (opts.prune) { for (const name of Object.keys(overrides)) if (!(name in config)) plan.config.removed.push(name); }
}
