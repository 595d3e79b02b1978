// The OpenAPI 3.1 document of a surface, derived from the route registry's zod schemas (zod-openapi), never hand-written.
import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { CATALOG, type ErrorCode } from '../../errors.js';
import { errorsOf, type Route, type Surface } from '../registry.js';

function objectOf(schema: z.ZodType | undefined): z.ZodObject | undefined {
  let s: unknown = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap();
  return s instanceof z.ZodObject ? s : undefined;
}

const errorBody = {
  admin: (codes: ErrorCode[]) => z.object({ status: z.number().int(), code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string(), details: z.array(z.unknown()) }),
  client: (codes: ErrorCode[]) => z.object({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string() }),
};
const reply = z.unknown().meta({ description: 'The reply body' });

/** One response per status the route's error codes map to, each naming its codes. */
function errorResponses(surface: Surface, codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(CATALOG[c][0], [...(byStatus.get(CATALOG[c][0]) ?? []), c]);
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), {
    description: list.map((c) => `${c}: ${CATALOG[c][1]}`).join('; '),
    content: { 'application/json': { schema: errorBody[surface](list) } },
  }]));
}

/** The success body in each content type the route produces (text types are plain strings). */
function success(r: Route): Record<string, unknown> {
  const content = Object.fromEntries((r.http.produces ?? ['application/json']).map((type) => [type, { schema: type === 'application/json' ? r.output : z.string() }]));
  const ok = { description: r.http.created ? 'Created' : 'OK', content };
  if (r.http.created === 'when-new') return { '201': ok, '200': { description: 'It existed already (the same body)', content } };
  return { [r.http.created ? '201' : '200']: ok };
}

/** One route's operation: its parameters, body (and streamed form), security and answers. */
function operationOf(surface: Surface, r: Route): Record<string, unknown> {
  const query = objectOf(r.query);
  const security = r.auth === 'none' ? [] : r.auth === 'user' ? [{ bearer: [] }] : [{ masterkey: [] }, { bearer: [] }];
  return {
    operationId: r.id,
    summary: r.summary,
    tags: [r.group],
    security,
    ...(r.params || query ? { requestParams: { ...(objectOf(r.params) ? { path: objectOf(r.params) } : {}), ...(query ? { query } : {}) } } : {}),
    ...(r.query && !query ? { description: 'Query: schema fields as equality filters besides the listed parameters.' } : {}),
    ...(r.body ? { requestBody: { required: true, content: {
      'application/json': { schema: r.body },
      ...(r.http.streamBody
        ? {
          [r.http.streamBody]: {
            schema: z.string().meta({
              description: r.http.streamBody.startsWith('multipart/') ? 'Form fields and one file part, streamed' : 'One JSON value per line, streamed',
            }),
          },
        } : {}),
    } } } : {}),
    responses: { ...success(r), ...errorResponses(surface, errorsOf(r)) },
  };
}

export function openApiDocument(surface: Surface, routes: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = errorBody[surface](['VALIDATION_FAILED', 'UNAUTHENTICATED', 'ROUTE_NOT_FOUND', 'RATE_LIMITED', 'STORE_UNAVAILABLE', 'INTERNAL']);
  for (const r of routes.filter((x) => x.surface === surface)) {
    const path = r.http.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
    paths[path] ??= {};
    paths[path]![r.http.method] = operationOf(surface, r);
  }
  // Served beside the registry's routes: GraphQL on both surfaces, the tool server on the admin one.
  const extra = (summary: string, schema: z.ZodType) => ({
    summary,
    security: surface === 'admin' ? [{ masterkey: [] }, { bearer: [] }] : [{ bearer: [] }],
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: reply } } },
      '4XX': { description: 'Refused', content: { 'application/json': { schema: error } } } },
  });
  paths['/graphql'] = {
    post: { operationId: 'post_graphql', tags: ['graphql'],
      ...extra('GraphQL (errors carry the REST codes in extensions)',
        z.object({ query: z.string(), variables: z.record(z.string(), z.unknown()).optional(), operationName: z.string().optional() })) },
  };
  if (surface === 'admin') {
    paths['/mcp'] = {
      post: { operationId: 'post_mcp', tags: ['mcp'],
        ...extra('MCP tool server (Streamable HTTP, JSON-RPC); Bearer only; ?modules=a,b',
          z.object({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.unknown().optional() })) },
      get: {
        operationId: 'get_mcp',
        tags: ['mcp'],
        summary: 'No server-initiated stream: the tool server is stateless (405 with Allow: POST)',
        security: [{ bearer: [] }],
        responses: { '405': { description: 'Use POST', content: { 'application/json': { schema: error } } }, ...errorResponses(surface, ['UNAUTHENTICATED', 'VALIDATION_FAILED']) },
      },
    };
  }
  paths['/docs/assets/{file}'] = { get: {
    operationId: 'get_docs_assets_file',
    tags: ['core'],
    summary: 'Swagger UI static files (scripts and styles of /docs)',
    security: [],
    requestParams: { path: z.object({ file: z.string() }) },
    responses: { '200': { description: 'The file', content: { '*/*': { schema: z.string() } } }, ...errorResponses(surface, ['ROUTE_NOT_FOUND']) },
  } };
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: `authz-graph ${surface} API`,
      version,
      description: surface === 'admin'
        ? 'Operators and agents: definitions, tuples, decisions, schemas, config. The MCP tool names are the operation ids.'
        : 'Applications: authentication, teams, checks and documents; the subject is always the caller.',
    },
    paths: paths as never,
    components: {
      securitySchemes: surface === 'admin'
        ? { masterkey: { type: 'apiKey', in: 'header', name: 'masterkey' },
          bearer: { type: 'http', scheme: 'bearer', description: 'Admin JWT from POST /login, or an API token (cdt_...)' } }
        : { bearer: { type: 'http', scheme: 'bearer', description: 'Access token from POST /authentication/local' } },
    },
  }) as unknown as Record<string, unknown>;
}
