// Custom endpoints: operators define them on the admin surface; clients call them at /database/function/:name (thin adapters).
import { z } from 'zod';
import { definitionParts, endpointName } from '../../engine/custom-endpoints.js';
import { endpointView, type CustomEndpoints, type EndpointChange, type EndpointInput } from '../../services/database/custom-endpoints.js';
import type { EndpointCalls } from '../../services/database/endpoint-calls.js';
import { databaseReplies as replies } from './database.js';
import { route, type HandlerInput, type Route } from '../registry.js';

const page = { skip: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(25) };
const p = definitionParts;
const createBody = z.strictObject({
  name: endpointName,
  operation: p.operation,
  schema: p.schema,
  description: p.description.optional(),
  inputs: p.inputs.optional(),
  filter: p.filter.optional(),
  assign: p.assign.optional(),
  scope: p.scope.optional(),
  auth: p.auth.optional(),
  paged: p.paged.optional(),
  sort: p.sort.optional(),
});
const patchBody = z.strictObject({
  operation: p.operation.optional(),
  schema: p.schema.optional(),
  inputs: p.inputs.optional(),
  filter: p.filter.optional(),
  assign: p.assign.optional(),
  auth: p.auth.optional(),
  description: p.description.nullable().optional(),
  scope: p.scope.optional(),
  paged: p.paged.nullable().optional(),
  sort: p.sort.nullable().optional(),
});
const nameParams = z.strictObject({ name: endpointName });

const time = z.string().meta({ format: 'date-time' });
const endpoint = z.object({
  name: z.string(),
  description: z.string().optional(),
  operation: z.enum(['find', 'create', 'update', 'delete']),
  schema: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  filter: z.record(z.string(), z.unknown()),
  assign: z.record(z.string(), z.unknown()),
  scope: z.unknown().optional(),
  auth: z.enum(['token', 'none']),
  paged: z.boolean().optional(),
  sort: z.string().optional(),
  createdAt: time,
  updatedAt: time,
}).meta({ id: 'CustomEndpoint' });
/** A find, update or delete answers `{documents, count}`; a create the new document. */
const callReply = z.union([replies.documents, replies.document]);
/** A definition is small; this bounds its JSON on every transport. */
const DEFINITION_LIMIT = '32kb';

export function customEndpointRoutes(endpoints: CustomEndpoints): Route[] {
  const admin = { surface: 'admin' as const, group: 'database', auth: 'admin' as const };
  return [
    route({
      ...admin,
      http: { method: 'get', path: '/database/customEndpoints' },
      output: z.object({ endpoints: z.array(endpoint), count: z.number().int() }),
      summary: 'List custom endpoints',
      query: z.strictObject(page),
      handle: async ({ query }) => ({ body: await endpoints.list(query.skip, query.limit) }),
    }),
    route({
      ...admin,
      http: { method: 'post', path: '/database/customEndpoints', created: 'always', bodyLimit: DEFINITION_LIMIT },
      output: endpoint,
      errors: ['ALREADY_EXISTS'],
      summary: 'Define a custom endpoint (find, create, update or delete on a schema, with typed inputs); refused when it names an unknown schema, field or input',
      body: createBody,
      handle: async ({ body }) => ({ status: 201, body: await endpoints.create(body as EndpointInput) }),
    }),
    route({
      ...admin,
      http: { method: 'get', path: '/database/customEndpoints/:name' },
      output: endpoint,
      errors: ['FUNCTION_NOT_FOUND'],
      summary: 'One custom endpoint',
      params: nameParams,
      handle: async ({ params }) => ({ body: endpointView(await endpoints.get(params.name)) }),
    }),
    route({
      ...admin,
      http: { method: 'patch', path: '/database/customEndpoints/:name', bodyLimit: DEFINITION_LIMIT },
      output: endpoint,
      errors: ['FUNCTION_NOT_FOUND'],
      summary: 'Change a custom endpoint (null removes description, paged or sort); the result is checked as a new one is',
      params: nameParams,
      body: patchBody,
      handle: async ({ params, body }) => ({ body: await endpoints.patch(params.name, body as EndpointChange) }),
    }),
    route({
      ...admin,
      http: { method: 'delete', path: '/database/customEndpoints/:name' },
      output: z.object({ deleted: endpoint }),
      errors: ['FUNCTION_NOT_FOUND'],
      summary: 'Delete a custom endpoint',
      params: nameParams,
      handle: async ({ params }) => ({ body: await endpoints.remove(params.name) }),
    }),
  ];
}

/**
 * GET and POST /database/function/:name[/:value]. Open at the route (auth 'none'): the definition says whether a
 * token is needed, and a token that is sent is always checked. Writes take POST; a path input is the `:value`.
 */
export function functionRoutes(calls: EndpointCalls): Route[] {
  const client = { surface: 'client' as const, group: 'database', auth: 'none' as const };
  const errors = ['FUNCTION_NOT_FOUND', 'FUNCTION_OUT_OF_DATE', 'UNAUTHENTICATED', 'TOKEN_EXPIRED', 'NOT_FOUND', 'FORBIDDEN', 'SCHEMA_NOT_FOUND', 'ALREADY_EXISTS',
    'LIST_TOO_LARGE'] as const;
  const name = z.string().max(200);
  const value = z.string().max(1000);
  // Inputs are checked against the definition at call time; here only their outer shape.
  const query = z.record(z.string().max(128), z.string().max(1000));
  const body = z.record(z.string().max(128), z.unknown()).optional();
  const run =
    (method: 'get' | 'post') =>
    async ({ params, query: q, body: b, headers }: HandlerInput<{ name: string; value?: string }, Record<string, string>, Record<string, unknown> | undefined>) =>
      calls.call(params.name, method, { query: q, body: b ?? {}, path: params.value }, headers.authorization);
  const summary = 'Run a custom endpoint (its definition decides the inputs, whether a token is needed, and what it reads or writes)';
  return [
    route({ ...client, http: { method: 'get', path: '/database/function/:name' }, output: callReply, errors: [...errors], summary, params: z.strictObject({ name }), query,
      handle: run('get') }),
    route({ ...client, http: { method: 'post', path: '/database/function/:name' }, output: callReply, errors: [...errors], summary, params: z.strictObject({ name }), query, body,
      handle: run('post') }),
    route({ ...client, http: { method: 'get', path: '/database/function/:name/:value' }, output: callReply, errors: [...errors], summary: `${summary}; :value is its path input`,
      params: z.strictObject({ name, value }), query, handle: run('get') }),
    route({ ...client, http: { method: 'post', path: '/database/function/:name/:value' }, output: callReply, errors: [...errors], summary: `${summary}; :value is its path input`,
      params: z.strictObject({ name, value }), query, body, handle: run('post') }),
  ];
}
