// Resource definitions: validation, version semantics (DESIGN.md section 6) and re-indexing what they affect.
import { arrowTargetProblems } from '../../engine/arrow-targets.js';
import { BUILTINS, BUILTIN_NAMES, validateDefinition, type Definition, type Model } from '../../engine/model.js';
import { AppError } from '../../errors.js';
import type { DefinitionRecord, DefinitionStore } from '../../stores/ports/definitions.js';
import type { ChangeEntry, ChangeLog } from '../../stores/ports/change-log.js';
import type { ListQuery } from '../../stores/ports/paging.js';
import type { SchemaStore } from '../../stores/ports/schemas.js';
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
export interface PutOptions { mustExist?: boolean; adopt?: boolean; arrowsChecked?: boolean }

/** The refusal of a write that would replace, unasked, what an authorization-enabled schema registered. */
export function schemaDefinitionConflict(name: string, version: number, path = 'version'): AppError {
  return new AppError('SCHEMA_DEFINITION', [
    `${name} is the definition that schema ${name} registered (authorization enabled): replacing it changes who may read, edit`,
    `and delete that schema's documents. To replace it anyway, send version ${version + 1} (the current version is ${version});`,
    'to define a type of your own, choose another name',
  ].join(' '), [{ path, schema: name, version, message: `send version ${version + 1} to replace it` }]);
}

const sameContent = (a: Definition, b: Definition) =>
  JSON.stringify([a.relations, a.permissions]) === JSON.stringify([b.relations, b.permissions]);

export const definitionView = (r: DefinitionRecord) => ({
  _id: r._id, name: r.name, relations: r.relations, permissions: r.permissions, version: r.version,
  createdAt: r.createdAt, updatedAt: r.updatedAt,
});

export class Definitions {
  constructor(private readonly store: DefinitionStore, private readonly models: ModelSource, private readonly log: ChangeLog,
    private readonly applier: Applier, private readonly reindexing?: Reindexing, private readonly schemas?: Pick<SchemaStore, 'findByName'>) {}

  /** Whether an authorization-enabled schema of this name registers the definition. */
  async registeredBySchema(name: string): Promise<boolean> {
    const s = await this.schemas?.findByName(name);
    return s?.serviceOptions.authorization.enabled === true;
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
    const revision = await this.log.commit(entry, this.applier.owner);
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
   * Create or replace; `version` absent means "next version". Replacing the definition a schema registered, with other
   * content, needs the version: without it the schema's documents could vanish from their owners by a name clash.
   */
  async put(def: Definition, version: number | undefined, opts: PutOptions = {}) {
    await this.validate(def, opts.arrowsChecked);
    const existing = await this.store.findDefinition(def.name);
    if (opts.mustExist && !existing) throw new AppError('NOT_FOUND', `No resource definition ${def.name}`);
    if (existing && version === undefined && !opts.adopt && !sameContent(existing, def) && await this.registeredBySchema(def.name)) {
      throw schemaDefinitionConflict(def.name, existing.version);
    }
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
    const { record, written } = await this.store.saveDefinition(def, target);
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

  async remove(idOrName: string) {
    const found = await this.get(idOrName);
    if (BUILTIN_NAMES.has(found.name)) throw new AppError('BUILTIN_DEFINITION', `${found.name} is built in; patch it instead`);
    const before = await this.models.get();
    const entry = await this.commit('remove', found.name);
    const deleted = await this.store.deleteDefinition(found.name);
    await this.inForce(entry, before, await this.models.changed());
    this.applier.submit(entry);
    if (!deleted) throw new AppError('NOT_FOUND', `No resource definition ${idOrName}`);
    return { deleted: definitionView(deleted), revision: entry.revision };
  }
}
