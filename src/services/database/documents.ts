// Client documents of database schemas: ownership on create, and every read, list and change authorized through the index.
import { randomUUID } from 'node:crypto';
import { checkDocument, equalityFilters, fieldOf } from '../../engine/schema-fields.js';
import { AppError } from '../../errors.js';
import type { Doc, DocumentStore } from '../../stores/ports/documents.js';
import { DuplicateKey } from '../../stores/ports/errors.js';
import type { SchemaRecord } from '../../stores/ports/schemas.js';
import type { Checks, ReadOptions } from '../authorization/checks.js';
import type { Relations } from '../authorization/relations.js';
import type { Schemas } from './schemas.js';

/** Readable ids a sorted or filtered list joins at most (a larger `$in` nears MongoDB's 16 MB command limit). */
const MAX_JOIN = 100_000;

export interface ListQuery {
  skip: number;
  limit: number;
  sort?: string;
  populate?: string;
  scope?: string;
  filters: Record<string, string>;
  /** How fresh the list must be (consistency, revision), as on the authorization reads. */
  read?: ReadOptions;
}

export class Documents {
  constructor(private readonly deps: { schemas: Schemas; docs: DocumentStore; relations: Relations; checks: Checks }) {}

  private guarded = (s: SchemaRecord) => s.serviceOptions.authorization.enabled;
  private object = (s: SchemaRecord, id: string) => `${s.name}:${id}`;

  /** With a scope the caller acts for it, which needs `needed` on the scope (else 403). */
  private async actor(userId: string, scope: string | undefined, needed: string, opts: ReadOptions = {}): Promise<string> {
    const me = `User:${userId}`;
    if (scope === undefined) return me;
    if (!(await this.deps.checks.can(me, needed, scope, opts))) throw new AppError('FORBIDDEN', `You need ${needed} on the scope ${scope}`);
    return scope;
  }

  /** Reading one the caller may not read is 404 (existence is not leaked); changing one it may read but not change is 403. */
  private async load(userId: string, s: SchemaRecord, id: string, action: 'read' | 'edit' | 'delete'): Promise<Doc> {
    const me = `User:${userId}`;
    if (this.guarded(s) && !(await this.deps.checks.can(me, 'read', this.object(s, id)))) throw notFound(s, id);
    const doc = await this.deps.docs.findById(s.collectionName, id);
    if (!doc) throw notFound(s, id);
    if (action !== 'read' && this.guarded(s) && !(await this.deps.checks.can(me, action, this.object(s, id)))) {
      throw new AppError('FORBIDDEN', `You may read ${s.name} ${id} but not ${action} it`);
    }
    return doc;
  }

  async create(userId: string, schemaName: string, body: unknown, scope?: string) {
    const s = await this.deps.schemas.get(schemaName);
    const { doc, problems } = checkDocument(s.fields, body, 'create');
    if (problems.length) throw new AppError('VALIDATION_FAILED', `The document does not match schema ${s.name}`, problems);
    const owner = this.guarded(s) ? await this.actor(userId, scope, 'edit') : null;
    const now = new Date().toISOString();
    const record: Doc = { _id: randomUUID(), ...doc, createdAt: now, updatedAt: now };
    // The owner tuple first: a crash in between leaves a tuple on a missing document (harmless), never a document nobody owns.
    if (owner) await this.deps.relations.create({ subject: owner, relation: 'owner', resource: this.object(s, record._id) });
    try {
      await this.deps.docs.insert(s.collectionName, record);
    } catch (e) {
      if (e instanceof DuplicateKey) {
        if (owner) await this.deps.relations.removeAllOn(this.object(s, record._id));
        throw new AppError('ALREADY_EXISTS', 'A unique field has this value already');
      }
      throw e;
    }
    return record;
  }

  async get(userId: string, schemaName: string, id: string, populate?: string, read: ReadOptions = {}) {
    const s = await this.deps.schemas.get(schemaName);
    await this.deps.checks.settle(read);
    const doc = await this.load(userId, s, id, 'read');
    return (await this.populate(`User:${userId}`, s, [doc], populate))[0]!;
  }

  /** The documents the caller (or the scope) can read: from the index, joined with the collection. */
  async list(userId: string, schemaName: string, q: ListQuery) {
    const s = await this.deps.schemas.get(schemaName);
    const { filter, problems } = equalityFilters(s.fields, q.filters);
    if (problems.length) throw new AppError('VALIDATION_FAILED', 'Unknown or malformed filter', problems);
    const sort = sortOf(s, q.sort);
    // The wait for a revision is paid once, for the scope's check and the list alike.
    await this.deps.checks.settle(q.read ?? {});
    const opts = { ...q.read, settled: true };
    const subject = await this.actor(userId, q.scope, 'read', opts);
    const { documents, count } = await this.readable(subject, s, filter, q.sort === undefined ? undefined : sort, q.skip, q.limit, opts);
    return { documents: await this.populate(subject, s, documents, q.populate), count };
  }

  /**
   * A page of what the caller (or the scope) can read among the documents matching `filter`, for custom endpoints:
   * the filter is built from a stored definition and typed inputs, never taken from a request as it is. Without a
   * caller (an endpoint open to anyone) only a schema without authorization is read.
   */
  async query(userId: string | null, s: SchemaRecord, q: { filter: Record<string, unknown>; sort?: string; skip: number; limit: number; scope?: string }) {
    const sort = q.sort === undefined ? undefined : sortOf(s, q.sort);
    if (userId === null) {
      if (this.guarded(s)) throw new AppError('UNAUTHENTICATED', `${s.name} has authorization enabled: call with a token`);
      return this.readable('', s, q.filter, sort, q.skip, q.limit);
    }
    return this.readable(await this.actor(userId, q.scope, 'read'), s, q.filter, sort, q.skip, q.limit);
  }

  /**
   * Changes or deletes every listed document, or none: each must be readable (else 404) and allow the action (else
   * 403) before any is written. The calls per document check again, as their own routes do.
   */
  async changeAll(userId: string, s: SchemaRecord, ids: string[], change: { set: Record<string, unknown> } | 'delete') {
    for (const id of ids) await this.load(userId, s, id, change === 'delete' ? 'delete' : 'edit');
    const out: Doc[] = [];
    for (const id of ids) {
      if (change === 'delete') out.push((await this.remove(userId, s.name, id)).deleted);
      else out.push(await this.patch(userId, s.name, id, change.set));
    }
    return out;
  }

  /** `sort` undefined: the index's order (the cheapest page of a guarded schema), `_id` order otherwise. */
  private async readable(subject: string, s: SchemaRecord, filter: Record<string, unknown>, sort: Record<string, 1 | -1> | undefined, skip: number, limit: number,
    opts: ReadOptions = {}) {
    let documents: Doc[];
    let count: number;
    if (!this.guarded(s)) {
      [documents, count] = await Promise.all([
        this.deps.docs.find(s.collectionName, filter, sort ?? { _id: 1 }, skip, limit),
        this.deps.docs.count(s.collectionName, filter),
      ]);
    } else if (typeof filter._id === 'string') {
      // One document by id (a custom endpoint's usual filter): one check, not a join with everything readable.
      const where = (await this.deps.checks.can(subject, 'read', this.object(s, filter._id), opts)) ? filter : null;
      [documents, count] = where ? await Promise.all([
        this.deps.docs.find(s.collectionName, where, sort ?? { _id: 1 }, skip, limit),
        this.deps.docs.count(s.collectionName, where),
      ]) : [[], 0];
    } else if (Object.keys(filter).length === 0 && sort === undefined) {
      // The common case stays on the index: one page of ids, then one `_id` lookup per document.
      const page = await this.deps.checks.listObjects(subject, 'read', s.name, skip, limit, opts);
      const ids = page.objects.map((o) => o.slice(s.name.length + 1));
      const byId = new Map((await this.deps.docs.findByIds(s.collectionName, ids)).map((d) => [d._id, d]));
      documents = ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
      count = page.count;
    } else {
      // Sorting or filtering joins every readable id with the collection (FerretDB v1 scans it for `$in`).
      const all = await this.deps.checks.listObjects(subject, 'read', s.name, 0, MAX_JOIN, opts);
      if (all.count > MAX_JOIN) {
        throw new AppError('LIST_TOO_LARGE', `${all.count} readable documents are too many to sort or filter (at most ${MAX_JOIN}); page them without sort or filters`);
      }
      const ids = all.objects.map((o) => o.slice(s.name.length + 1));
      // An `_id` term of the filter (a comparison) is kept beside the readable ids, not overwritten by them.
      const where = Object.hasOwn(filter, '_id') ? { $and: [filter, { _id: { $in: ids } }] } : { ...filter, _id: { $in: ids } };
      [documents, count] = await Promise.all([
        this.deps.docs.find(s.collectionName, where, sort ?? { _id: 1 }, skip, limit),
        this.deps.docs.count(s.collectionName, where),
      ]);
    }
    return { documents, count };
  }

  async patch(userId: string, schemaName: string, id: string, body: unknown) {
    const s = await this.deps.schemas.get(schemaName);
    await this.load(userId, s, id, 'edit');
    const { doc, problems } = checkDocument(s.fields, body, 'patch');
    if (problems.length) throw new AppError('VALIDATION_FAILED', `The change does not match schema ${s.name}`, problems);
    try {
      const updated = await this.deps.docs.update(s.collectionName, id, { ...doc, updatedAt: new Date().toISOString() });
      if (!updated) throw notFound(s, id);
      return updated;
    } catch (e) {
      if (e instanceof DuplicateKey) throw new AppError('ALREADY_EXISTS', 'A unique field has this value already');
      throw e;
    }
  }

  /**
   * Deletes every tuple on the document, then the document. In that order a failure half-way leaves the
   * document with the tuples that let its owner see it, so the owner's retry finishes the job.
   */
  async remove(userId: string, schemaName: string, id: string) {
    const s = await this.deps.schemas.get(schemaName);
    await this.load(userId, s, id, 'delete');
    const tuples = this.guarded(s) ? await this.deps.relations.removeAllOn(this.object(s, id)) : 0;
    const deleted = await this.deps.docs.delete(s.collectionName, id);
    if (!deleted) throw notFound(s, id);
    return { deleted, tuples };
  }

  /** Replaces the ids in Relation fields by the documents, where the reader may read them; others stay ids. */
  private async populate(reader: string, s: SchemaRecord, docs: Doc[], populate?: string): Promise<Doc[]> {
    if (!populate) return docs;
    const out = docs.map((d) => ({ ...d }));
    for (const field of populate.split(',').map((f) => f.trim()).filter(Boolean)) {
      const spec = fieldOf(s.fields, field);
      if (spec?.type !== 'Relation' || !spec.model) {
        throw new AppError('VALIDATION_FAILED', `populate takes Relation fields of ${s.name}; ${field} is not one`, [{ path: 'query.populate' }]);
      }
      const target = await this.deps.schemas.get(spec.model);
      const ids = [...new Set(out.map((d) => d[field]).filter((v): v is string => typeof v === 'string'))];
      const readable = this.guarded(target)
        ? (await Promise.all(ids.map(async (id) => ((await this.deps.checks.can(reader, 'read', `${target.name}:${id}`)) ? id : null))))
          .filter((id): id is string => id !== null)
        : ids;
      const found = new Map((await this.deps.docs.findByIds(target.collectionName, readable)).map((d) => [d._id, d]));
      for (const d of out) if (typeof d[field] === 'string' && found.has(d[field])) d[field] = found.get(d[field]);
    }
    return out;
  }
}

const notFound = (s: SchemaRecord, id: string) => new AppError('NOT_FOUND', `No ${s.name} ${id}`);

function sortOf(s: SchemaRecord, sort: string | undefined): Record<string, 1 | -1> {
  if (sort === undefined) return { _id: 1 };
  const field = sort.replace(/^-/, '');
  if (!fieldOf(s.fields, field) && !['_id', 'createdAt', 'updatedAt'].includes(field)) {
    throw new AppError('VALIDATION_FAILED', `Cannot sort by ${field}: not a field of ${s.name}`, [{ path: 'query.sort' }]);
  }
  return { [field]: sort.startsWith('-') ? -1 : 1 };
}
