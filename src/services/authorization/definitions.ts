// Resource definitions: validation, version semantics (DESIGN.md section 6) and re-indexing what they affect.
import { arrowTargetProblems } from '../../engine/arrow-targets.js';
import { sameContent } from '../../engine/definition-content.js';
import { BUILTINS, BUILTIN_NAMES, schemaDefinition, validateDefinition, type Definition, type Model } from '../../engine/model.js';
import { AppError } from '../../errors.js';
import type { DefinitionRecord, DefinitionStore } from '../../stores/ports/definitions.js';
import type { ChangeEntry, ChangeLog } from '../../stores/ports/change-log.js';
import type { ListQuery } from '../../stores/ports/paging.js';
import type { SchemaStore } from '../../stores/ports/schemas.js';
import { SERVICE_TYPES } from '../module-types.js';
import type { Applier } from './applier.js';
import type { ModelSource } from './model-source.js';
import { Reindexing } from './reindexing.js';

export type DefinitionStatus = 'processed' | 'acknowledged' | 'ignored';

/**
 * `mustExist`: a PATCH (404 when absent). `adopt`: the caller replaces a schema's definition knowingly (a state import
 * that carries the schema too, planned and checked before), so no version is asked for. `arrowsChecked`: the arrows
 * were checked against the model the caller leaves in place (a planned state import); checked against the stored
 * model one definition at a time, an import fixing a name and an arrow to it together would stop part-way.
 */
export interface PutOptions {
  mustExist?: boolean;
  adopt?: boolean;
  arrowsChecked?: boolean;
}

/**
 * The refusal of a write that would replace or delete, unasked, what an authorization-enabled schema registered.
 * `version` is the stored one (absent: none is stored, and any version creates it).
 */
export function schemaDefinitionConflict(name: string, version: number | undefined, path = 'version', op: 'replace' | 'delete' = 'replace'): AppError {
  return new AppError('SCHEMA_DEFINITION', [
    `${name} is the definition that schema ${name} registers (authorization enabled): ${op === 'delete' ? 'deleting' : 'replacing'} it changes who may`,
    `read, edit and delete that schema's documents. ${howTo(name, version, op)}; to define a type of your own, choose another name`,
  ].join(' '), [{ path, schema: name, version, message: ask(version, op) }]);
}

/** The refusal of a write that would replace or delete, unasked, a built-in type or one a module registered. */
export function moduleDefinitionConflict(name: string, owner: string, version: number | undefined, path = 'version', op: 'replace' | 'delete' = 'replace'): AppError {
  return new AppError('MODULE_DEFINITION', [
    `${name} is the ${owner} module's resource type: ${op === 'delete' ? 'deleting' : 'replacing'} it breaks what the ${owner} module relies on`,
    `(its relations and permissions). ${howTo(name, version, op)}; to define a type of your own, choose another name`,
  ].join(' '), [{ path, module: owner, version, message: ask(version, op) }]);
}

const ask = (version: number | undefined, op: 'replace' | 'delete') => (op === 'delete' ? `send version ${version} to delete it`
  : version === undefined ? 'send a version (0 or more) to define it' : `send version ${version + 1} to replace it`);
const howTo = (name: string, version: number | undefined, op: 'replace' | 'delete') => (op === 'delete'
  ? `To delete it anyway, send its current version (DELETE /authorization/resources/${name}?version=${version})`
  : version === undefined ? `None is stored: to define it anyway, send a version (0 or more)`
  : `To replace it anyway, send version ${version + 1} (the current version is ${version})`);

export const definitionView = (r: DefinitionRecord) => ({
  _id: r._id,
  name: r.name,
  relations: r.relations,
  permissions: r.permissions,
  version: r.version,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export class Definitions {
  constructor(private readonly store: DefinitionStore, private readonly models: ModelSource, private readonly log: ChangeLog, private readonly applier: Applier,
    private readonly reindexing?: Reindexing, private readonly schemas?: Pick<SchemaStore, 'findByName'>) {}

  /** Whether an authorization-enabled schema of this name registers the definition. */
  async registeredBySchema(name: string): Promise<boolean> {
    const s = await this.schemas?.findByName(name);
    return s?.serviceOptions.authorization.enabled === true;
  }

  /**
   * Refuses a write, without a version, that would replace or delete what a schema, a module or the service itself
   * registered (an unversioned write of the same content passes): a name clash would otherwise take a schema's
   * documents from their owners, or break a module, unasked. Checked when nothing is stored too, so deleting first
   * and creating after is no way round it.
   */
  private async guard(name: string, existing: DefinitionRecord | null, def?: Definition): Promise<void> {
    const service = SERVICE_TYPES.get(name);
    const schema = !service && await this.registeredBySchema(name);
    if (!service && !schema) return;
    if (def && sameContent(existing ?? service?.definition ?? schemaDefinition(name), def)) return;
    const op = def ? 'replace' : 'delete';
    throw service ? moduleDefinitionConflict(name, service.owner, existing?.version, 'version', op)
      : schemaDefinitionConflict(name, existing?.version, 'version', op);
  }

  /**
   * Puts the change in force before it is acknowledged: every process answers the affected types from the projection
   * under the new model until the re-index is done, so reads at its revision need not wait for the re-index.
   */
  private async inForce(entry: ChangeEntry, before: Model, after: Model): Promise<void> {
    if (!this.reindexing) return;
    await this.reindexing.begin(entry.revision, entry.type!, Reindexing.affectedBy(entry.type!, before, after));
    await this.log.release(entry.revision);
  }

  /** Logs the change first (the commit point), so a crash after the save still re-indexes the type. */
  private async commit(op: 'define' | 'remove', type: string, change: Pick<ChangeEntry, 'definition' | 'created'> = {}): Promise<ChangeEntry> {
    const entry = { kind: 'definition' as const, op, type, ...change };
    const revision = await this.applier.commit(entry);
    return { ...entry, revision, at: new Date() };
  }

  /**
   * Allowed subject types may name types defined later (definitions refer to each other), so they are not looked up;
   * an arrow to a name that none of its (defined) types declares is a typo and refused.
   */
  private async validate(def: Definition, arrowsChecked = false) {
    const own = validateDefinition(def);
    const problems = own.length || arrowsChecked ? own
      : arrowTargetProblems(def, await this.models.unlessStale((m) => arrowTargetProblems(def, m).length === 0));
    if (problems.length) throw new AppError('INVALID_DEFINITION', problems[0]!.message, problems);
  }

  /**
   * Create or replace; `version` absent means "next version". Writing the definition a schema or a module registered,
   * with other content, needs the version (see `guard`).
   */
  async put(def: Definition, version: number | undefined, opts: PutOptions = {}) {
    await this.validate(def, opts.arrowsChecked);
    const existing = await this.store.findDefinition(def.name);
    if (opts.mustExist && !existing) throw new AppError('NOT_FOUND', `No resource definition ${def.name}`);
    if (version === undefined && !opts.adopt) await this.guard(def.name, existing, def);
    if (existing && version !== undefined) {
      if (version === existing.version) {
        if (sameContent(existing, def)) return { status: 'acknowledged' as const, resourceDefinition: definitionView(existing) };
        throw new AppError('VERSION_CONFLICT', `Version ${version} of ${def.name} exists with different content`);
      }
      if (version < existing.version) return { status: 'ignored' as const, resourceDefinition: definitionView(existing) };
    }
    const target = version ?? (existing ? existing.version + 1 : 0);
    const before = await this.models.get();
    // The change feed shows what was defined and whether the type is new.
    const entry = await this.commit('define', def.name, { definition: { relations: def.relations, permissions: def.permissions, version: target }, created: !existing });
    const { record, written } = await this.applier.change(entry, () => this.store.saveDefinition(def, target));
    // Applied either way: when a concurrent write won, re-indexing under its content is what is needed.
    await this.inForce(entry, before, await this.models.changed());
    this.applier.submit(entry);
    if (!written) {
      if (record.version === target && sameContent(record, def)) return { status: 'acknowledged' as const, resourceDefinition: definitionView(record) };
      throw new AppError('VERSION_CONFLICT', `A concurrent write stored version ${record.version} of ${def.name}`);
    }
    return { status: 'processed' as const, resourceDefinition: definitionView(record), revision: entry.revision };
  }

  /** Stores the built-ins at startup when absent, so they can be read and patched like any other. */
  async seedBuiltins() {
    for (const def of BUILTINS) await this.store.saveDefinition(def, 0);
    await this.models.changed();
  }

  async get(idOrName: string) {
    const r = await this.store.findDefinition(idOrName);
    if (!r) throw new AppError('NOT_FOUND', `No resource definition ${idOrName}`);
    return r;
  }

  async list(q: ListQuery) {
    const page = await this.store.listDefinitions(q);
    return { resources: page.items.map(definitionView), count: page.count };
  }

  /** `version`: the stored one, asked for when a schema or a module registered the type (else 409, see `guard`). */
  async remove(idOrName: string, version?: number) {
    const found = await this.get(idOrName);
    if (BUILTIN_NAMES.has(found.name)) throw new AppError('BUILTIN_DEFINITION', `${found.name} is built in; patch it instead`);
    if (version === undefined) await this.guard(found.name, found);
    else if (version !== found.version) throw new AppError('VERSION_CONFLICT', `${found.name} is at version ${found.version}, not ${version}; nothing was deleted`);
    const before = await this.models.get();
    const entry = await this.commit('remove', found.name);
    const deleted = await this.applier.change(entry, () => this.store.deleteDefinition(found.name));
    await this.inForce(entry, before, await this.models.changed());
    this.applier.submit(entry);
    if (!deleted) throw new AppError('NOT_FOUND', `No resource definition ${idOrName}`);
    return { deleted: definitionView(deleted), revision: entry.revision };
  }
}
