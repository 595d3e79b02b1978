// Stored files: ownership on upload, every read, change and delete authorized through the index, bytes through a provider.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { unstorable } from '../../engine/storable.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { FileRecord, FileRecordStore } from '../../stores/ports/file-records.js';
import { FileMissing, type ByteRange } from '../../stores/ports/file-storage.js';
import type { Checks, ReadOptions } from '../authorization/checks.js';
import type { Definitions } from '../authorization/definitions.js';
import type { Relations } from '../authorization/relations.js';
import type { StorageConfig } from '../config/storage-config.js';
import { ANONYMOUS, ANYONE, FILE_TYPE, fileDefinition, publicDefinition } from './definition.js';
import { readJsonUpload } from './json-upload.js';
import { readMultipartUpload } from './multipart-upload.js';
import type { Providers } from './providers.js';
import { rangeOf } from './ranges.js';
import type { UrlSigner } from './signed-urls.js';

/** What a caller sends: the raw body (multipart or JSON, read as it arrives) and its content type. */
export interface UploadBody {
  stream?: AsyncIterable<Buffer | string>;
  contentType?: string;
}

export interface Download {
  status: 200 | 206;
  headers: Record<string, string>;
  stream: Readable;
}

/**
 * Types a browser runs, or renders as a document that may hold scripts or forms, when it opens them: HTML, XML (SVG
 * among them), JavaScript. Sent as attachment, so opening one downloads it instead of rendering it on this origin.
 */
const ACTIVE = /^(text\/html|application\/xhtml\+xml|[a-z]+\/([a-z0-9.+-]*\+)?xml|text\/xsl|[a-z]+\/([a-z0-9.+-]*[.-])?(java|ecma)script|application\/x-shockwave-flash)$/;
const isActive = (mimeType: string) => ACTIVE.test(mimeType.split(';')[0]!.trim().toLowerCase());

const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
const metadata = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  mimeType: z.string().regex(MIME, 'not a media type (type/subtype)').optional(),
  folder: z.string().min(1).max(500).nullable().optional(),
  isPublic: flag.optional(),
});

export const fileView = (r: FileRecord) => ({
  _id: r._id,
  name: r.name,
  size: r.size,
  mimeType: r.mimeType,
  folder: r.folder,
  isPublic: r.isPublic,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export class Files {
  private defined: Promise<unknown> | null = null;
  private publicDefined: Promise<unknown> | null = null;

  constructor(private readonly deps: {
    records: FileRecordStore;
    relations: Relations;
    checks: Checks;
    definitions: Definitions;
    providers: Providers;
    signer: UrlSigner;
    config: () => StorageConfig;
    log: Logger;
  }) {}

  /**
   * Registers the `File` definition once (version 0: acknowledged when it is there already, ignored when an operator
   * has patched it since). Tried at start and again before a write until it succeeds, so a store that is down at
   * start does not keep the module from working later.
   */
  define(): Promise<unknown> {
    this.defined ??= this.deps.definitions.put(fileDefinition(), 0).catch((e: unknown) => {
      this.defined = null;
      throw e;
    });
    return this.defined;
  }

  /** `StoragePublic`, registered (version 0) when a file is first made public, so a service without public files has no such type. */
  private definePublic(): Promise<unknown> {
    this.publicDefined ??= this.deps.definitions.put(publicDefinition(), 0).catch((e: unknown) => {
      this.publicDefined = null;
      // An operator's own version 0 of the type is kept (as the chat module keeps its ChatRoom).
      if (e instanceof AppError && e.code === 'VERSION_CONFLICT') {
        return this.deps.log.warn({ type: publicDefinition().name }, 'the stored StoragePublic definition differs from the built one; it is kept');
      }
      throw e;
    });
    return this.publicDefined;
  }

  private object = (id: string) => `${FILE_TYPE}:${id}`;

  /** Public is an index fact: whoever asks (no token: a subject that holds nothing) may read the file. */
  private isPublic(id: string): Promise<boolean> {
    return this.deps.checks.can(ANONYMOUS, 'read', this.object(id));
  }

  /**
   * Makes a file public (the tuple `StoragePublic:anyone#reader@File:<id>`) or private (that tuple deleted), in force
   * in the index when it returns: a file made private is not served as public afterwards, by any route.
   */
  private async setPublic(id: string, on: boolean): Promise<void> {
    const tuple = { subject: ANYONE, relation: 'reader', resource: this.object(id) };
    if (on) {
      await this.definePublic();
      await this.deps.relations.create(tuple);
      return;
    }
    await this.deps.relations.removeMany([tuple], []);
    // The delete is applied by the index's queue: waited for, so the answer means the file is private.
    await this.deps.checks.settle({ consistency: 'at_least_as_fresh' });
  }

  /** With a scope the caller acts for it, which needs `needed` on the scope (else 403). */
  private async actor(userId: string, scope: string | undefined, needed: string): Promise<string> {
    const me = `User:${userId}`;
    if (scope === undefined) return me;
    if (!(await this.deps.checks.can(me, needed, scope))) throw new AppError('FORBIDDEN', `You need ${needed} on the scope ${scope}`);
    return scope;
  }

  /**
   * A file the caller may not read is 404 (its existence is not leaked); one it may read but not change is 403. Without
   * a token (`userId` null, where a token is optional) only a public file is read, anything else is 401.
   */
  private async load(userId: string | null, id: string, action: 'read' | 'edit' | 'delete'): Promise<FileRecord> {
    const me = userId === null ? ANONYMOUS : `User:${userId}`;
    if (!(await this.deps.checks.can(me, 'read', this.object(id)))) {
      throw userId === null ? new AppError('UNAUTHENTICATED', `No public file ${id}; send a token (Authorization: Bearer) to read files shared with you`) : notFound(id);
    }
    const record = await this.deps.records.get(id);
    if (!record) throw notFound(id);
    if (action !== 'read' && !(await this.deps.checks.can(me, action, this.object(id)))) {
      throw new AppError('FORBIDDEN', `You may read file ${id} but not ${action} it`);
    }
    return record;
  }

  /** Reads the body, writing its content (if any) under `key` of the current provider as it arrives. */
  private async receive(body: UploadBody, key: string) {
    const provider = this.deps.providers.current();
    const max = this.deps.config().maxFileBytes;
    const sink = (bytes: Readable) => provider.put(key, bytes);
    const type = body.contentType ?? '';
    let got: { fields: Record<string, unknown>; size: number | null; filename?: string; mimeType?: string };
    if (!body.stream) throw new AppError('BAD_REQUEST', 'Send the file as multipart/form-data (a part named file) or as JSON { name, data: <base64> }');
    try {
      if (/^multipart\/form-data/i.test(type)) got = await readMultipartUpload(body.stream, type, max, sink);
      else got = await readJsonUpload(body.stream, max, sink);
    } catch (e) {
      // The content may have been stored whole before the rest of the body was refused (a body past its bound).
      await provider.delete(key).catch(() => undefined);
      throw e;
    }
    // What the pipeline checks in every parsed body, checked here for this streamed one: a NUL or a lone surrogate in a
    // name or folder would fail only at the store, after the bytes and the owner tuple were written.
    // A multipart file part's filename and content type stand in for a missing name and mimeType: held to the same rules.
    const filename = got.fields.name === undefined ? got.filename : undefined;
    const partType = got.fields.mimeType === undefined ? got.mimeType : undefined;
    const refused = unstorable(got.fields, 'body')
      ?? (filename === undefined ? null : unstorable(filename, 'body.file.filename') ?? fieldIssue(metadata.shape.name, filename, 'body.file.filename'))
      ?? (partType === undefined ? null : unstorable(partType, 'body.file.contentType') ?? fieldIssue(metadata.shape.mimeType, partType, 'body.file.contentType'));
    if (refused) {
      if (got.size !== null) await provider.delete(key);
      throw new AppError('VALIDATION_FAILED', `Invalid body: ${refused.path} ${refused.message}`, [refused]);
    }
    const parsed = metadata.safeParse(got.fields);
    if (!parsed.success) {
      if (got.size !== null) await provider.delete(key);
      const details = parsed.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message }));
      throw new AppError('VALIDATION_FAILED', `Invalid body: ${details[0]!.path} ${details[0]!.message}`, details);
    }
    return { meta: parsed.data, size: got.size, filename: got.filename, partType: got.mimeType, provider: provider.name };
  }

  async upload(userId: string, body: UploadBody, scope?: string) {
    await this.define();
    const owner = await this.actor(userId, scope, 'edit');
    const id = randomUUID();
    const key = randomUUID();
    const got = await this.receive(body, key);
    const drop = () => this.deps.providers.named(got.provider).delete(key).catch(() => undefined);
    // A team's file made public needs what making it private later needs: delete on the file, i.e. on the team.
    if (got.meta.isPublic && scope !== undefined && !(await this.deps.checks.can(`User:${userId}`, 'delete', scope))) {
      if (got.size !== null) await drop();
      throw new AppError('FORBIDDEN', `A public file for ${scope} needs delete on it (its owners' rights)`);
    }
    const name = got.meta.name ?? got.filename;
    if (got.size === null || !name) {
      if (got.size !== null) await drop();
      const path = got.size === null ? (/^multipart\//i.test(body.contentType ?? '') ? 'body.file' : 'body.data') : 'body.name';
      throw new AppError('VALIDATION_FAILED', `Invalid body: ${path} is required`, [{ path, message: 'required' }]);
    }
    const now = new Date().toISOString();
    const record: FileRecord = {
      _id: id,
      name,
      size: got.size,
      mimeType: got.meta.mimeType ?? got.partType ?? 'application/octet-stream',
      folder: got.meta.folder ?? null,
      isPublic: got.meta.isPublic ?? false,
      createdAt: now,
      updatedAt: now,
      provider: got.provider,
      key,
    };
    try {
      // The owner tuple first: a crash in between leaves a tuple on a missing file (harmless), never a file nobody owns.
      await this.deps.relations.create({ subject: owner, relation: 'owner', resource: this.object(id) }).catch(async (e: unknown) => {
        // The definition was removed since it was registered (by an operator, or a state import with prune): again.
        if (!(e instanceof AppError && e.code === 'UNKNOWN_TYPE')) throw e;
        this.defined = null;
        await this.define();
        await this.deps.relations.create({ subject: owner, relation: 'owner', resource: this.object(id) });
      });
      if (record.isPublic) await this.setPublic(id, true);
      await this.deps.records.insert(record);
    } catch (e) {
      await drop();
      throw e;
    }
    return fileView(record);
  }

  /** Replaces the content (when the body carries some) and the metadata given; needs edit, and delete to change isPublic. */
  async replace(userId: string, id: string, body: UploadBody) {
    const before = await this.load(userId, id, 'edit');
    const key = randomUUID();
    const got = await this.receive(body, key);
    const dropNew = async (e: unknown): Promise<never> => {
      if (got.size !== null) await this.deps.providers.named(got.provider).delete(key).catch(() => undefined);
      throw e;
    };
    if (got.meta.isPublic !== undefined && got.meta.isPublic !== await this.isPublic(id)) {
      // Publishing is the owner's call (delete): an editor may change the file, not who may read it.
      if (!(await this.deps.checks.can(`User:${userId}`, 'delete', this.object(id)))) {
        await dropNew(new AppError('FORBIDDEN', `Making file ${id} ${got.meta.isPublic ? 'public' : 'private'} needs delete (its owner's rights)`));
      }
      // The index first: a failure after it leaves the record behind, which the same request repairs.
      await this.setPublic(id, got.meta.isPublic).catch(dropNew);
    }
    const set: Partial<FileRecord> = { updatedAt: new Date().toISOString() };
    if (got.meta.name !== undefined) set.name = got.meta.name;
    if (got.meta.folder !== undefined) set.folder = got.meta.folder;
    if (got.meta.isPublic !== undefined) set.isPublic = got.meta.isPublic;
    if (got.meta.mimeType !== undefined) set.mimeType = got.meta.mimeType;
    if (got.size !== null) Object.assign(set, { size: got.size, key, provider: got.provider, ...(got.meta.mimeType ? {} : { mimeType: got.partType ?? before.mimeType }) });
    const after = await this.deps.records.update(id, set).catch(dropNew);
    if (!after) throw notFound(id);
    // The old bytes go once the record points at the new ones; readers in flight finish on the file they opened.
    if (got.size !== null) {
      await this.deps.providers.named(before.provider).delete(before.key).catch((e: Error) => this.deps.log.warn({ err: e.message, file: id }, 'old file content not removed'));
    }
    return fileView(after);
  }

  /** The record; `userId` null: a caller without a token, who reads public files only. */
  async get(userId: string | null, id: string) {
    return fileView(await this.load(userId, id, 'read'));
  }

  /** Throws while the provider new uploads go to cannot be used (for /ready). */
  probe(): Promise<void> {
    return this.deps.providers.current().probe();
  }

  /** The files the caller (or the scope) can read: a page of ids from the index, then one lookup each; `read` says how fresh. */
  async list(userId: string, skip: number, limit: number, scope?: string, read: ReadOptions = {}) {
    await this.deps.checks.settle(read);
    const subject = await this.actor(userId, scope, 'read');
    const page = await this.deps.checks.listObjects(subject, 'read', FILE_TYPE, skip, limit);
    const ids = page.objects.map((o) => o.slice(FILE_TYPE.length + 1));
    const byId = new Map((await this.deps.records.getMany(ids)).map((r) => [r._id, r]));
    return { files: ids.flatMap((id) => (byId.has(id) ? [fileView(byId.get(id)!)] : [])), count: page.count };
  }

  /** Tuples first, then the record, then the bytes: a failure half-way leaves what lets the owner retry. */
  async remove(userId: string, id: string) {
    const record = await this.load(userId, id, 'delete');
    await this.deps.relations.removeAllOn(this.object(id));
    await this.deps.records.delete(id);
    await this.deps.providers.named(record.provider).delete(record.key);
    return { deleted: true as const };
  }

  /**
   * A link to the bytes: plain for a public file, else signed and expiring. `origin` is where this service is reached;
   * `userId` null: a caller without a token, who gets links to public files only.
   */
  async url(userId: string | null, id: string, origin: string) {
    await this.load(userId, id, 'read');
    const base = this.deps.config().publicUrl?.replace(/\/$/, '') ?? origin;
    if (userId === null || await this.isPublic(id)) return { url: `${base}/storage/public/${id}`, expiresAt: null };
    const expires = Math.floor(Date.now() / 1000) + this.deps.config().urlTtlSeconds;
    const url = `${base}/storage/signed/${id}?expires=${expires}&user=${userId}&signature=${this.deps.signer.sign(id, userId, expires)}`;
    return { url, expiresAt: new Date(expires * 1000).toISOString() };
  }

  async data(userId: string, id: string, range?: string): Promise<Download> {
    return this.download(await this.load(userId, id, 'read'), range, 'private');
  }

  /**
   * The bytes behind a signed link. The signature names the user who asked for it, whose read is asked of the index
   * again on every use: the link stops working as soon as that user may no longer read the file.
   */
  async signedData(id: string, userId: string, expires: number, signature: string, range?: string): Promise<Download> {
    const verdict = this.deps.signer.verify(id, userId, expires, signature);
    if (verdict === 'expired') throw new AppError('FORBIDDEN', 'The link has expired; ask for a new one');
    if (verdict === 'invalid') throw new AppError('FORBIDDEN', 'The link is not valid');
    if (!(await this.deps.checks.can(`User:${userId}`, 'read', this.object(id)))) {
      throw new AppError('FORBIDDEN', 'The link is no longer valid: whoever asked for it may no longer read the file');
    }
    const record = await this.deps.records.get(id);
    if (!record) throw notFound(id);
    return this.download(record, range, 'link');
  }

  /** The bytes of a public file (as the index has it), to anyone. */
  async publicData(id: string, range?: string): Promise<Download> {
    if (!(await this.isPublic(id))) throw notFound(id);
    const record = await this.deps.records.get(id);
    if (!record) throw notFound(id);
    return this.download(record, range, 'public');
  }

  /**
   * `via`: `private` (the bytes route, with a token), `link` (a signed link) or `public` (a public file's plain link).
   * The two links may be embedded by pages of other origins (`<img>`, `<video>`): their bytes are
   * `Cross-Origin-Resource-Policy: cross-origin`, while every other answer keeps the surface's `same-origin`.
   */
  private async download(record: FileRecord, rangeHeader: string | undefined, via: 'private' | 'link' | 'public'): Promise<Download> {
    const range: ByteRange | null = rangeOf(rangeHeader, record.size);
    let stream: Readable;
    try {
      stream = await this.deps.providers.named(record.provider).get(record.key, range ?? undefined);
    } catch (e) {
      if (e instanceof FileMissing) throw notFound(record._id);
      throw e;
    }
    const active = isActive(record.mimeType);
    const inline = !active || (via === 'public' && record.mimeType.toLowerCase().startsWith('image/'));
    const headers: Record<string, string> = {
      'Content-Type': record.mimeType,
      'Accept-Ranges': 'bytes',
      'Content-Length': String(range ? range.end - range.start + 1 : record.size),
      // Shown in the browser when it can be, never run: the surface's CSP (default-src 'none') and nosniff still apply.
      // Active types are downloaded, except a public image (SVG) through its public link, which pages show as an image.
      'Content-Disposition': `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(record.name)}`,
    };
    if (via !== 'private') headers['Cross-Origin-Resource-Policy'] = 'cross-origin';
    // An active type opened anyway (a public SVG through its link) renders sandboxed: no scripts, forms or same-origin access.
    if (active) headers['Content-Security-Policy'] = "default-src 'none'; frame-ancestors 'none'; sandbox";
    if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${record.size}`;
    return { status: range ? 206 : 200, headers, stream };
  }
}

/** The first problem `schema` finds in a value taken from a part's header (its filename or content type), or null. */
function fieldIssue(schema: z.ZodType, value: string, path: string): { path: string; message: string } | null {
  const r = schema.safeParse(value);
  return r.success ? null : { path, message: r.error.issues[0]!.message };
}

const notFound = (id: string) => new AppError('NOT_FOUND', `No file ${id}`);
