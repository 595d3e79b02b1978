// Database schemas for operators: create, list, export and import, and adopting existing collections (introspection).
import { sameContent } from '../../engine/definition-content.js';
import { randomUUID } from 'node:crypto';
import { NAME_RE } from '../../engine/ids.js';
import { BUILTIN_NAMES, schemaDefinition } from '../../engine/model.js';
import { parseFields, usableFieldName, type FieldSpec, type Fields } from '../../engine/schema-fields.js';
import { AppError } from '../../errors.js';
import type { DocumentStore } from '../../stores/ports/documents.js';
import type { Epoch } from '../../stores/ports/epoch.js';
import { DuplicateKey } from '../../stores/ports/errors.js';
import type { IntrospectedRecord, SchemaRecord, SchemaStore } from '../../stores/ports/schemas.js';
import type { Definitions } from '../authorization/definitions.js';
import { MODULE_TYPES } from '../module-types.js';

export interface SchemaInput {
  name: string;
  fields: unknown;
  serviceOptions?: { authorization?: { enabled?: boolean } };
}

export const schemaView = (s: SchemaRecord) => ({
  _id: s._id,
  name: s.name,
  collectionName: s.collectionName,
  fields: s.fields,
  serviceOptions: s.serviceOptions,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});
const portable = (s: SchemaRecord) => ({ name: s.name, fields: s.fields, serviceOptions: s.serviceOptions });
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A cached schema is served this long at most, even if a bump of the epoch was lost. */
const CACHE_MS = 60_000;

export class Schemas {
  /** Every client document call reads its schema; the copy here is trusted while the schemas' epoch is unchanged. */
  private readonly cache = new Map<string, { epoch: string; at: number; record: SchemaRecord }>();

  constructor(private readonly deps: {
    schemas: SchemaStore;
    docs: DocumentStore;
    definitions: Definitions;
    systemCollections: ReadonlySet<string>;
    epoch: Epoch;
  }) {}

  async get(name: string): Promise<SchemaRecord> {
    const epoch = await this.deps.epoch.read();
    const hit = this.cache.get(name);
    if (hit && epoch !== null && hit.epoch === epoch && Date.now() - hit.at < CACHE_MS) return hit.record;
    const s = await this.deps.schemas.findByName(name);
    if (!s) throw new AppError('SCHEMA_NOT_FOUND', `No schema ${name}`);
    if (epoch !== null) {
      if (this.cache.size >= 1000) this.cache.clear();
      this.cache.set(name, { epoch, at: Date.now(), record: s });
    }
    return s;
  }

  /** Every schema as stored (GraphQL is generated from them). */
  records(): Promise<SchemaRecord[]> {
    return this.deps.schemas.all();
  }

  /** Changes whenever a schema is created or changed; null when that cannot be told. */
  version(): Promise<string | null> {
    return this.deps.epoch.read();
  }

  async list(skip: number, limit: number) {
    const page = await this.deps.schemas.list(skip, limit);
    return { schemas: page.items.map(schemaView), count: page.count };
  }

  private async validate(input: SchemaInput, extraNames: string[] = []): Promise<{ fields: Fields; enabled: boolean }> {
    if (!NAME_RE.test(input.name)) throw new AppError('VALIDATION_FAILED', 'A schema name must match ^[A-Za-z][A-Za-z0-9_]*$', [{ path: 'name' }]);
    if (BUILTIN_NAMES.has(input.name)) throw new AppError('VALIDATION_FAILED', `${input.name} is a built-in type`, [{ path: 'name' }]);
    const module = MODULE_TYPES.get(input.name);
    if (module) throw new AppError('ALREADY_EXISTS', `${input.name} is the ${module} module's resource type; choose another schema name`, [{ path: 'name' }]);
    // GET/POST /database/function/:name belong to custom functions.
    if (input.name === 'function') throw new AppError('VALIDATION_FAILED', 'function is reserved for custom functions', [{ path: 'name' }]);
    const known = new Set([...(await this.deps.schemas.all()).map((s) => s.name), input.name, ...extraNames]);
    const { fields, problems } = parseFields(input.fields, known);
    if (problems.length) throw new AppError('VALIDATION_FAILED', 'The schema fields are not valid', problems);
    return { fields, enabled: input.serviceOptions?.authorization?.enabled === true };
  }

  /**
   * Unique indexes, and the resource definition of an authorization-enabled schema (DESIGN.md section 4),
   * written only when it is missing: an operator may have extended it since, and rewriting it would
   * re-index the whole type for nothing.
   */
  private async apply(s: SchemaRecord): Promise<void> {
    for (const [name, f] of Object.entries(s.fields) as Array<[string, FieldSpec]>) {
      if (!f.unique) continue;
      try {
        await this.deps.docs.uniqueIndex(s.collectionName, name);
      } catch (e) {
        if (!(e instanceof DuplicateKey)) throw e;
        throw new AppError('ALREADY_EXISTS', `${s.name}.${name} cannot be unique: stored documents share a value`);
      }
    }
    if (s.serviceOptions.authorization.enabled && !(await this.definitionExists(s.name))) {
      await this.deps.definitions.put(schemaDefinition(s.name), undefined);
    }
  }

  /** A definition of this name exists and is not the one a schema registers. */
  private async handMade(name: string): Promise<boolean> {
    try {
      const d = await this.deps.definitions.get(name);
      return !sameContent(d, schemaDefinition(name));
    } catch (e) {
      if (e instanceof AppError && e.code === 'NOT_FOUND') return false;
      throw e;
    }
  }

  private async definitionExists(name: string): Promise<boolean> {
    try {
      await this.deps.definitions.get(name);
      return true;
    } catch (e) {
      if (e instanceof AppError && e.code === 'NOT_FOUND') return false;
      throw e;
    }
  }

  /** `adopt`: the caller writes this type's definition itself (a state import carrying both), so a hand-made one is no conflict. */
  async create(input: SchemaInput, collectionName = input.name, extraNames: string[] = [], adopt = false) {
    const { fields, enabled } = await this.validate(input, extraNames);
    if (this.deps.systemCollections.has(collectionName)) throw new AppError('VALIDATION_FAILED', `${collectionName} is a collection of the service`);
    // A type an operator defined by hand is not taken over by a schema of the same name.
    if (enabled && !adopt && await this.handMade(input.name)) {
      throw new AppError('ALREADY_EXISTS', `A resource definition ${input.name} exists already; choose another schema name`);
    }
    const now = new Date();
    const record: SchemaRecord = {
      _id: randomUUID(),
      name: input.name,
      collectionName,
      fields,
      serviceOptions: { authorization: { enabled } },
      createdAt: now,
      updatedAt: now,
    };
    if (await this.deps.schemas.findByName(input.name)) throw new AppError('ALREADY_EXISTS', `A schema ${input.name} exists`);
    await this.unowned(collectionName);
    // Indexes and definition first: a schema is only recorded once what it needs is in place.
    await this.apply(record);
    if (!(await this.deps.schemas.insert(record))) {
      // Lost a race on the name or, by the unique index on collectionName, on the collection.
      await this.unowned(collectionName);
      throw new AppError('ALREADY_EXISTS', `A schema ${input.name} exists`);
    }
    await this.deps.epoch.bump();
    return schemaView(record);
  }

  /**
   * Refuses a collection that a schema holds already: a second owner would serve the same documents under other
   * access rules (a schema without authorization lets every signed-in user read what the other one guards).
   */
  private async unowned(collectionName: string): Promise<void> {
    const owner = await this.deps.schemas.findByCollection(collectionName);
    if (owner) throw new AppError('ALREADY_EXISTS', `The collection ${collectionName} belongs to schema ${owner.name}; a collection has one schema`);
  }

  async export() {
    return { schemas: (await this.deps.schemas.all()).map(portable) };
  }

  /**
   * What importing `list` would do, every schema validated first (a bad one: an error naming it, nothing changed).
   * `adopt`: names whose resource definitions the caller writes itself.
   */
  async plan(list: SchemaInput[], adopt: ReadonlySet<string> = new Set()) {
    return (await this.prepare(list, adopt)).out;
  }

  /** The plan, and the records the updated schemas become. */
  private async prepare(list: SchemaInput[], adopt: ReadonlySet<string>) {
    const names = list.map((s) => s.name);
    const out = { created: [] as string[], updated: [] as string[], unchanged: [] as string[] };
    const updates = new Map<string, SchemaRecord>();
    for (const [i, input] of list.entries()) {
      try {
        if (names.indexOf(input.name) !== i) throw new AppError('VALIDATION_FAILED', `${input.name} appears twice`);
        const { fields, enabled } = await this.validate(input, names);
        const existing = await this.deps.schemas.findByName(input.name);
        if (!existing) {
          if (this.deps.systemCollections.has(input.name)) throw new AppError('VALIDATION_FAILED', `${input.name} is a collection of the service`);
          await this.unowned(input.name);
          if (enabled && !adopt.has(input.name) && await this.handMade(input.name)) {
            throw new AppError('ALREADY_EXISTS', `A resource definition ${input.name} exists already; choose another schema name`);
          }
          out.created.push(input.name);
        } else {
          const next = { ...existing, fields, serviceOptions: { authorization: { enabled } } };
          if (same(portable(next), portable(existing))) out.unchanged.push(input.name);
          else {
            out.updated.push(input.name);
            updates.set(input.name, next);
          }
        }
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        throw new AppError(e.code, `schemas[${i}] (${input.name}): ${e.message}`, [{ path: `schemas.${i}`, name: input.name, details: e.details }]);
      }
    }
    return { out, updates };
  }

  /** Creates or updates each schema by name, after all of them validated; documents are kept (turning authorization on keeps them too). */
  async import(list: SchemaInput[], adopt: ReadonlySet<string> = new Set()) {
    const { out, updates } = await this.prepare(list, adopt);
    const names = list.map((s) => s.name);
    for (const input of list) {
      if (out.created.includes(input.name)) await this.create(input, input.name, names, adopt.has(input.name));
    }
    for (const next of updates.values()) {
      await this.apply(next);
      await this.deps.schemas.replace({ ...next, updatedAt: new Date() });
      await this.deps.epoch.bump();
    }
    return out;
  }

  /** Collections that are neither schemas nor the service's own. */
  async unclaimed(): Promise<string[]> {
    const claimed = new Set((await this.deps.schemas.all()).map((s) => s.collectionName));
    return (await this.deps.schemas.collections())
      .filter((c) => !claimed.has(c) && !this.deps.systemCollections.has(c) && !c.startsWith('system.')).sort();
  }

  /** Samples every unclaimed collection and records the fields it finds, to be reviewed and finalized. */
  async introspect() {
    const found: IntrospectedRecord[] = [];
    for (const c of await this.unclaimed()) {
      const docs = await this.deps.docs.sample(c, 100);
      found.push({ _id: c, collectionName: c, fields: inferFields(docs), documents: docs.length, foundAt: new Date() });
    }
    await this.deps.schemas.putIntrospected(found);
    return { schemas: found, count: found.length };
  }

  async introspected() {
    const list = await this.deps.schemas.introspected();
    return { schemas: list, count: list.length };
  }

  /** Adopts introspected collections as schemas; their documents stay where they are. */
  async finalize(items: Array<{ collectionName: string; name?: string; fields?: unknown; serviceOptions?: SchemaInput['serviceOptions'] }>) {
    const pending = new Map((await this.deps.schemas.introspected()).map((r) => [r.collectionName, r]));
    // Every item checked before the first is adopted, so a refused one leaves the others unadopted too.
    const seen = new Set<string>();
    for (const item of items) {
      if (!pending.has(item.collectionName)) throw new AppError('NOT_FOUND', `${item.collectionName} is not an introspected collection; run POST /database/introspection first`);
      if (seen.has(item.collectionName)) throw new AppError('VALIDATION_FAILED', `${item.collectionName} appears twice`, [{ path: 'schemas' }]);
      seen.add(item.collectionName);
      // An introspection result may be older than a schema made since for the same collection.
      await this.unowned(item.collectionName);
    }
    const created = [];
    for (const item of items) {
      const found = pending.get(item.collectionName);
      if (!found) throw new AppError('NOT_FOUND', `${item.collectionName} is not an introspected collection; run POST /database/introspection first`);
      const name = item.name ?? item.collectionName;
      created.push(await this.create({ name, fields: item.fields ?? found.fields, serviceOptions: item.serviceOptions }, item.collectionName));
      await this.deps.schemas.dropIntrospected([found._id]);
    }
    return { schemas: created, count: created.length };
  }
}

/** Field types seen in sampled documents: one type per field, JSON where they disagree. */
function inferFields(docs: Array<Record<string, unknown>>): Fields {
  const seen = new Map<string, Set<string>>();
  for (const d of docs) {
    for (const [k, v] of Object.entries(d)) {
      if (!usableFieldName(k)) continue;
      const t = typeof v === 'string' ? 'String' : typeof v === 'number' ? 'Number' : typeof v === 'boolean' ? 'Boolean' : v instanceof Date ? 'Date' : 'JSON';
      seen.set(k, new Set([...(seen.get(k) ?? []), t]));
    }
  }
  return Object.fromEntries([...seen].map(([k, types]) => [k, {
    type: (types.size === 1 ? [...types][0] : 'JSON') as FieldSpec['type'],
    required: false,
    unique: false,
  }]));
}
