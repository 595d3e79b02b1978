// The storage module's client routes: upload (multipart or base64 JSON, streamed), records, links, bytes and deletion.
import { z } from 'zod';
import type { ErrorCode } from '../../errors.js';
import type { ClientAuth } from '../../services/client-auth.js';
import type { Download, Files } from '../../services/storage/files.js';
import { route, type Reply, type Route } from '../registry.js';
import { consistencyFields, objectText, readOptions } from './fields.js';

const time = z.string().meta({ format: 'date-time' });
const file = z.object({
  _id: z.string(),
  name: z.string(),
  size: z.number().int(),
  mimeType: z.string(),
  folder: z.string().nullable(),
  isPublic: z.boolean(),
  createdAt: time,
  updatedAt: time,
}).meta({ id: 'File' });
const idParams = z.strictObject({ id: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'not a file id') });
const teamScope = objectText.refine((s) => s.startsWith('Team:'), { message: 'a scope is a team: Team:<id>' });
/** The JSON form of an upload, as documented; the service reads it as it streams (the base64 `data` is never held whole). */
const jsonUpload = z.strictObject({
  name: z.string().min(1).max(255),
  data: z.string().meta({ description: 'The content, base64' }),
  mimeType: z.string().max(255).optional(),
  folder: z.string().max(500).nullable().optional(),
  isPublic: z.boolean().optional(),
});
const MULTIPART = 'multipart/form-data';

const bytes = (d: Download): Reply => ({ status: d.status, headers: d.headers, stream: d.stream });
/** Where the caller reached this service, for links it is handed (config storage.publicUrl overrides it). */
const originOf = (headers: Record<string, string | undefined>) => {
  const host = headers.host ?? '';
  return /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `http://${host}` : '';
};

const user = { surface: 'client' as const, group: 'storage', auth: 'user' as const, mcp: false };
const open = { surface: 'client' as const, group: 'storage', auth: 'none' as const, mcp: false };
const streamed = { status: 200, produces: ['application/octet-stream'] };
export function storageRoutes(files: Files, clientAuth: ClientAuth): Route[] {
  // Contract 4.3: a token is optional on the record and link routes. One that is sent is always checked (401 if bad);
  // without one the caller reads public files only.
  const optional = { ...open, errors: ['UNAUTHENTICATED', 'TOKEN_EXPIRED', 'NOT_FOUND'] as ErrorCode[] };
  const caller = async (
    headers: Record<string, string | undefined>,
  ) => (headers.authorization === undefined ? null : (await clientAuth.authenticate(headers.authorization)).userId);
  return [
    route({
      ...user,
      http: { method: 'post', path: '/storage/upload', created: 'always', streamBody: MULTIPART, streamJson: true },
      output: file,
      errors: ['FORBIDDEN', 'PAYLOAD_TOO_LARGE', 'BAD_REQUEST'],
      summary: 'Upload a file (multipart: a part named file, fields name, folder, isPublic; or JSON with base64 data); you (or the scope team) own it',
      query: z.strictObject({ scope: teamScope.optional() }),
      body: jsonUpload,
      handle: async ({ query, stream, headers, user: u }) => ({ status: 201, body: await files.upload(u!.userId, { stream, contentType: headers['content-type'] }, query.scope) }),
    }),
    route({
      ...user,
      http: { method: 'patch', path: '/storage/upload/:id', streamBody: MULTIPART, streamJson: true },
      output: file,
      errors: ['NOT_FOUND', 'FORBIDDEN', 'PAYLOAD_TOO_LARGE', 'BAD_REQUEST'],
      summary: "Replace a file's content and/or metadata (needs edit)",
      params: idParams,
      body: jsonUpload.partial(),
      handle: async ({ params, stream, headers, user: u }) => ({ body: await files.replace(u!.userId, params.id, { stream, contentType: headers['content-type'] }) }),
    }),
    route({
      ...user,
      http: { method: 'get', path: '/storage/files' },
      output: z.object({ files: z.array(file), count: z.number().int() }),
      errors: ['FORBIDDEN'],
      summary: 'The files you (or the scope) can read, paged, from the index; consistency=at_least_as_fresh&revision=N sees every write up to N',
      query: z.strictObject({ skip: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(25), scope: objectText.optional(),
        ...consistencyFields }),
      handle: async ({ query, user: u }) => ({ body: await files.list(u!.userId, query.skip, query.limit, query.scope, readOptions(query)) }),
    }),
    route({
      ...optional,
      http: { method: 'get', path: '/storage/getFileUrl/:id' },
      output: z.object({ url: z.string(), expiresAt: time.nullable() }),
      summary: "A link to the file's bytes: signed and expiring (config storage.urlTtlSeconds), plain for a public file; "
        + 'the token is optional (without one: public files only, else 401)',
      params: idParams,
      handle: async ({ params, headers }) => ({ body: await files.url(await caller(headers), params.id, originOf(headers)) }),
    }),
    route({
      ...optional,
      http: { method: 'get', path: '/storage/file/:id' },
      output: file,
      summary: "A file's record (404 unless you may read it; the token is optional: without one, public files only, else 401)",
      params: idParams,
      handle: async ({ params, headers }) => ({ body: await files.get(await caller(headers), params.id) }),
    }),
    ...byteRoutes(files),
  ];
}

/** A file's bytes (with a token, a signed link or to anyone when public), and its deletion. */
function byteRoutes(files: Files): Route[] {
  return [
    route({
      ...user,
      http: { method: 'get', path: '/storage/file/data/:id', produces: streamed.produces },
      output: z.string(),
      errors: ['NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],
      summary: "A file's bytes in its stored content type; one Range (bytes=a-b) answers 206",
      params: idParams,
      handle: async ({ params, headers, user: u }) => bytes(await files.data(u!.userId, params.id, headers.range)),
    }),
    route({
      ...user,
      http: { method: 'delete', path: '/storage/file/:id' },
      output: z.object({ deleted: z.literal(true) }),
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Delete a file: its tuples, record and bytes (needs delete)',
      params: idParams,
      handle: async ({ params, user: u }) => ({ body: await files.remove(u!.userId, params.id) }),
    }),
    route({
      ...open,
      http: { method: 'get', path: '/storage/signed/:id', produces: streamed.produces },
      output: z.string(),
      errors: ['NOT_FOUND', 'FORBIDDEN', 'RANGE_NOT_SATISFIABLE'],
      summary: "A file's bytes through a signed link from GET /storage/getFileUrl (403 once it expires, when altered, or once its user may no longer read the file)",
      params: idParams,
      query: z.strictObject({
        expires: z.coerce.number().int().min(0).max(2 ** 40),
        user: z.string().regex(/^[^\s#@]{1,200}$/, 'not a user id'),
        signature: z.string().max(100),
      }),
      handle: async ({ params, query, headers }) => bytes(await files.signedData(params.id, query.user, query.expires, query.signature, headers.range)),
    }),
    route({
      ...open,
      http: { method: 'get', path: '/storage/public/:id', produces: streamed.produces },
      output: z.string(),
      errors: ['NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],
      summary: "A public file's bytes, to anyone (404 for a file that is not public)",
      params: idParams,
      handle: async ({ params, headers }) => bytes(await files.publicData(params.id, headers.range)),
    }),
  ];
}
