// The database module: schemas and introspection for operators, documents for client users (thin adapters).
import { z } from 'zod';
import { NAME_RE } from '../../engine/ids.js';
import { AppError } from '../../errors.js';
import type { Documents } from '../../services/database/documents.js';
import type { Schemas } from '../../services/database/schemas.js';
import { changes, names, time } from './reply-parts.js';
import { route, type Route } from '../registry.js';
import { consistencyFields, nameText, objectText as object, readOptions } from './fields.js';

const schema = z.object({
  _id: z.string(),
  name: z.string(),
  collectionName: z.string(),
  fields: z.record(z.string(), z.unknown()),
  serviceOptions: z.object({ authorization: z.object({ enabled: z.boolean() }) }),
  createdAt: time,
  updatedAt: time,
}).meta({ id: 'Schema' });
const doc = z.object({ _id: z.string() }).catchall(z.unknown()).meta({ id: 'Document' });
/** The database module's reply bodies; the custom endpoints answer documents too. */
export const databaseReplies = {
  schemas: z.object({ schemas: z.array(schema), count: z.number().int() }),
  schema,
  schemaExport: z.object({ schemas: z.array(z.object({ name: z.string(), fields: z.record(z.string(), z.unknown()), serviceOptions: z.unknown() })) }),
  schemaImport: changes,
  collections: z.object({ collections: names }),
  introspected: z.object({ schemas: z.array(z.object({ collectionName: z.string(), fields: z.record(z.string(), z.unknown()) }).catchall(z.unknown())), count: z.number().int() }),
  finalized: z.object({ schemas: z.array(schema), count: z.number().int() }),
  document: doc,
  documents: z.object({ documents: z.array(doc), count: z.number().int() }),
  documentDeleted: z.object({ deleted: doc, tuples: z.number().int() }),
} as const;
const replies = databaseReplies;

const page = { skip: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(25) };
const options = z.strictObject({ authorization: z.strictObject({ enabled: z.boolean() }).optional() });
const schemaBody = z.strictObject({ name: nameText, fields: z.record(z.string(), z.unknown()), serviceOptions: options.optional() });
const schemaParam = z.string().regex(NAME_RE, 'not a schema name');
/** The documents list's query names for how fresh it must be (routes/fields.ts consistencyFields). */
const FRESHNESS = ['consistency', 'revision'];
const docParams = z.strictObject({ schema: schemaParam, id: z.string().min(1).max(200) });

/** What the database routes call; `functions` are the custom endpoints' routes. */
export interface DatabaseRouteDeps {
  schemas: Schemas;
  documents: Documents;
  functions: Route[];
}
const admin = { surface: 'admin' as const, group: 'database', auth: 'admin' as const };
const user = { surface: 'client' as const, group: 'database', auth: 'user' as const };

export function databaseRoutes(deps: DatabaseRouteDeps): Route[] {
  return [...schemaRoutes(deps), ...documentRoutes(deps)];
}

/** Schemas and introspection, on the admin surface. */
function schemaRoutes({ schemas }: DatabaseRouteDeps): Route[] {
  return [
    route({
      ...admin,
      http: { method: 'get', path: '/database/schemas' },
      output: replies.schemas,
      summary: 'List database schemas',
      query: z.strictObject(page),
      handle: async ({ query }) => ({ body: await schemas.list(query.skip, query.limit) }),
    }),
    route({
      ...admin,
      http: { method: 'post', path: '/database/schemas', created: 'always' },
      output: replies.schema,
      errors: ['ALREADY_EXISTS'],
      summary: 'Create a schema; authorization.enabled registers its resource definition',
      body: schemaBody,
      handle: async ({ body }) => ({ status: 201, body: await schemas.create(body) }),
    }),
    route({
      ...admin,
      http: { method: 'get', path: '/database/schemas/export' },
      output: replies.schemaExport,
      summary: 'Export every schema (name, fields, serviceOptions)',
      handle: async () => ({ body: await schemas.export() }),
    }),
    route({
      ...admin,
      http: { method: 'post', path: '/database/schemas/import' },
      output: replies.schemaImport,
      errors: ['ALREADY_EXISTS'],
      mcp: false,
      summary: 'Create or update schemas by name; documents are kept',
      body: z.strictObject({ schemas: z.array(schemaBody).max(1000) }),
      handle: async ({ body }) => ({ body: await schemas.import(body.schemas) }),
    }),
    route({
      ...admin,
      http: { method: 'get', path: '/database/introspection' },
      output: replies.collections,
      mcp: false,
      summary: 'Collections that are not schemas yet',
      handle: async () => ({ body: { collections: await schemas.unclaimed() } }),
    }),
    route({
      ...admin,
      http: { method: 'post', path: '/database/introspection' },
      output: replies.introspected,
      mcp: false,
      summary: 'Sample the unclaimed collections and infer their fields',
      handle: async () => ({ body: await schemas.introspect() }),
    }),
    route({
      ...admin,
      http: { method: 'get', path: '/database/introspection/schemas' },
      output: replies.introspected,
      mcp: false,
      summary: 'Introspected collections waiting to be finalized',
      handle: async () => ({ body: await schemas.introspected() }),
    }),
    route({
      ...admin,
      http: { method: 'post', path: '/database/introspection/schemas/finalize' },
      output: replies.finalized,
      errors: ['NOT_FOUND', 'ALREADY_EXISTS'],
      mcp: false,
      summary: 'Adopt introspected collections as schemas',
      body: z.strictObject({ schemas: z.array(z.strictObject({
        collectionName: z.string().min(1).max(120),
        name: z.string().regex(NAME_RE).optional(),
        fields: z.record(z.string(), z.unknown()).optional(),
        serviceOptions: options.optional(),
      })).min(1).max(1000) }),
      handle: async ({ body }) => ({ body: await schemas.finalize(body.schemas) }),
    }),
  ];
}

/** Documents of each schema, for signed-in users (after the custom endpoints, which the :schema routes would shadow). */
function documentRoutes({ schemas, documents, functions }: DatabaseRouteDeps): Route[] {
  return [
    // Custom endpoints (routes/custom-endpoints.ts) come before /database/:schema/:id, which would take "function" for a schema.
    ...functions,
    route({
      ...user,
      http: { method: 'post', path: '/database/:schema', created: 'always' },
      output: replies.document,
      errors: ['SCHEMA_NOT_FOUND', 'FORBIDDEN', 'ALREADY_EXISTS'],
      summary: 'Create a document; you (or the scope team) become its owner',
      params: z.strictObject({ schema: schemaParam }),
      query: z.strictObject({ scope: object.refine((s) => s.startsWith('Team:'), { message: 'a scope to create for is a team: Team:<id>' }).optional() }),
      body: z.record(z.string(), z.unknown()),
      handle: async ({ params, query, body, user: u }) => ({ status: 201, body: await documents.create(u!.userId, params.schema, body, query.scope) }),
    }),
    route({
      ...user,
      http: { method: 'get', path: '/database/:schema' },
      output: replies.documents,
      errors: ['SCHEMA_NOT_FOUND', 'FORBIDDEN', 'LIST_TOO_LARGE', 'INDEX_BEHIND'],
      summary: 'The documents you (or the scope) can read, paged; schema fields as equality filters; consistency=at_least_as_fresh&revision=N sees every write up to N',
      params: z.strictObject({ schema: schemaParam }),
      // Field names are filters, so the query is checked against the schema in the service (still strict).
      query: z.record(z.string().max(128), z.string().max(1000)),
      handle: async ({ params, query, user: u }) => {
        const { skip, limit, sort, populate, scope, ...rest } = query;
        // consistency and revision are the read's freshness unless the schema has a field of that name, which they then
        // filter on as before: the names are not reserved, so no schema loses a field to them.
        const fields = (await schemas.get(params.schema)).fields;
        const [consistency, revision] = FRESHNESS.map((k) => (Object.hasOwn(fields, k) ? undefined : rest[k]));
        const filters = Object.fromEntries(Object.entries(rest).filter(([k]) => Object.hasOwn(fields, k) || !FRESHNESS.includes(k)));
        const q = z.strictObject({
          ...page,
          sort: z.string().regex(/^-?[A-Za-z_][A-Za-z0-9_]*$/).optional(),
          populate: z.string().max(500).optional(),
          scope: object.optional(),
          ...consistencyFields,
        }).safeParse({ skip, limit, sort, populate, scope, consistency, revision });
        if (!q.success) throw new AppError('VALIDATION_FAILED', 'Invalid query', q.error.issues.map((i) => ({ path: `query.${i.path.join('.')}`, message: i.message })));
        return { body: await documents.list(u!.userId, params.schema, { ...q.data, filters, read: readOptions(q.data) }) };
      },
    }),
    route({
      ...user,
      http: { method: 'get', path: '/database/:schema/:id' },
      output: replies.document,
      errors: ['SCHEMA_NOT_FOUND', 'NOT_FOUND'],
      summary: 'One document you can read (404 otherwise); consistency=at_least_as_fresh&revision=N sees every write up to N',
      params: docParams,
      query: z.strictObject({ populate: z.string().max(500).optional(), ...consistencyFields }),
      handle: async ({ params, query, user: u }) => ({ body: await documents.get(u!.userId, params.schema, params.id, query.populate, readOptions(query)) }),
    }),
    route({
      ...user,
      http: { method: 'patch', path: '/database/:schema/:id' },
      output: replies.document,
      errors: ['SCHEMA_NOT_FOUND', 'NOT_FOUND', 'FORBIDDEN', 'ALREADY_EXISTS'],
      summary: 'Change fields of a document (needs edit)',
      params: docParams,
      body: z.record(z.string(), z.unknown()),
      handle: async ({ params, body, user: u }) => ({ body: await documents.patch(u!.userId, params.schema, params.id, body) }),
    }),
    route({
      ...user,
      http: { method: 'delete', path: '/database/:schema/:id' },
      output: replies.documentDeleted,
      errors: ['SCHEMA_NOT_FOUND', 'NOT_FOUND', 'FORBIDDEN'],
      summary: 'Delete a document and its tuples (needs delete)',
      params: docParams,
      handle: async ({ params, user: u }) => ({ body: await documents.remove(u!.userId, params.schema, params.id) }),
    }),
  ];
}
