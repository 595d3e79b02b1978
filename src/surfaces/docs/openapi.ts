// The OpenAPI 3.1 document of a surface, derived from the route registry's zod schemas (zod-openapi), never hand-written.
import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { CATALOG } from '../../errors.js';
import { toolName, type Route, type Surface } from '../registry.js';

function objectOf(schema: z.ZodType | undefined): z.ZodObject | undefined {
  let s: unknown = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap();
  return s instanceof z.ZodObject ? s : undefined;
}

const codes = Object.keys(CATALOG) as [string, ...string[]];
const errorBody = {
  admin: z.object({ status: z.number().int(), code: z.enum(codes), message: z.string(), details: z.array(z.unknown()) }).meta({ id: 'AdminError' }),
  client: z.object({ code: z.enum(codes), message: z.string() }).meta({ id: 'ClientError' }),
};
const reply = z.unknown().meta({ description: 'The reply body (see the README for shapes)' });

export function openApiDocument(surface: Surface, routes: Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = errorBody[surface];
  for (const r of routes.filter((x) => x.surface === surface)) {
    const path = r.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
    const query = objectOf(r.query);
    const security = r.auth === 'none' ? [] : r.auth === 'user' ? [{ bearer: [] }] : [{ masterkey: [] }, { bearer: [] }];
    paths[path] ??= {};
    paths[path]![r.method] = {
      operationId: toolName(r.method, r.path),
      summary: r.summary,
      tags: [r.module],
      security,
      ...(r.params || query ? { requestParams: { ...(objectOf(r.params) ? { path: objectOf(r.params) } : {}), ...(query ? { query } : {}) } } : {}),
      ...(r.query && !query ? { description: 'Query: schema fields as equality filters besides the listed parameters.' } : {}),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
      responses: {
        '200': { description: 'OK (201 for creations)', content: { 'application/json': { schema: reply } } },
        '4XX': { description: 'Refused; `code` says why', content: { 'application/json': { schema: error } } },
        '5XX': { description: 'A store is unavailable (503, retry) or an internal error', content: { 'application/json': { schema: error } } },
      },
    };
  }
  // Served beside the registry's routes: GraphQL on both surfaces, the tool server on the admin one.
  const extra = (summary: string, schema: z.ZodType) => ({
    summary, security: surface === 'admin' ? [{ masterkey: [] }, { bearer: [] }] : [{ bearer: [] }],
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: reply } } }, '4XX': { description: 'Refused', content: { 'application/json': { schema: error } } } },
  });
  paths['/graphql'] = { post: { operationId: 'post_graphql', tags: ['graphql'], ...extra('GraphQL (errors carry the REST codes in extensions)',
    z.object({ query: z.string(), variables: z.record(z.string(), z.unknown()).optional(), operationName: z.string().optional() })) } };
  if (surface === 'admin') {
    paths['/mcp'] = { post: { operationId: 'post_mcp', tags: ['mcp'], ...extra('MCP tool server (Streamable HTTP, JSON-RPC); Bearer only; ?modules=a,b',
      z.object({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.unknown().optional() })) } };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: `authz-graph ${surface} API`, version,
      description: surface === 'admin'
        ? 'Operators and agents: definitions, tuples, decisions, schemas, config. The MCP tool names are the operation ids.'
        : 'Applications: authentication, teams, checks and documents; the subject is always the caller.',
    },
    paths: paths as never,
    components: {
      securitySchemes: surface === 'admin'
        ? { masterkey: { type: 'apiKey', in: 'header', name: 'masterkey' }, bearer: { type: 'http', scheme: 'bearer', description: 'Admin JWT from POST /login, or an API token (cdt_...)' } }
        : { bearer: { type: 'http', scheme: 'bearer', description: 'Access token from POST /authentication/local' } },
    },
  }) as unknown as Record<string, unknown>;
}
