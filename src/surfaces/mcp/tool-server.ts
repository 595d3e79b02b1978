// The MCP tool server at {admin}/mcp: Streamable HTTP (stateless), the admin routes as tools, docs as resources.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Express, Request, Response } from 'express';
import { AppError, adminErrorBody } from '../../errors.js';
import { callRequest } from '../http/access-log.js';
import { headersOf, httpFailure } from '../http/wire.js';
import { splitArgs } from '../flat-args.js';
import { collected, type Caller, type Pipeline } from '../pipeline.js';
import { ALIASES, GLOBAL, META, allTools, selectGroups, type Tool } from './tool-groups.js';

export interface DocResource {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  read(): Promise<string>;
}

export interface ToolServerDeps {
  pipeline: Pipeline;
  version: string;
  /** Config module names (each gets get_config_{module} and patch_config_{module} when loaded). */
  configModules: string[];
  docs: DocResource[];
}

const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }] });
/** MCP's one error mapping for a tool call: the admin surface's error body, as a tool result marked an error. */
const toolError = (e: AppError) => ({ ...json(adminErrorBody(e)), isError: true });

function build(deps: ToolServerDeps, tools: Tool[], groups: string[], caller: Caller, validator: AjvJsonSchemaValidator) {
  const { pipeline } = deps;
  const server = new McpServer({ name: 'authz-graph', version: deps.version }, {
    jsonSchemaValidator: validator,
    instructions: 'Authorization service administration. Call list_modules first; reconnect with ?modules=a,b to load more tools. '
      + 'Tool arguments are flat: path parameters, query and body fields side by side. Errors come back as the REST error body.',
  });
  const loaded = tools.filter((t) => groups.includes(t.group) || t.group === GLOBAL);
  for (const t of loaded) {
    server.registerTool(t.name, { description: t.description, inputSchema: t.inputSchema }, async (args: Record<string, unknown>) => {
      try {
        const raw = splitArgs(t.route, t.flat, args, t.fixed);
        const reply = await collected(await pipeline.invoke(t.route, raw, caller));
        return json(reply.text ?? reply.body ?? {});
      } catch (e) {
        return toolError(pipeline.neutral(e, `MCP ${t.name}`));
      }
    });
  }
  server.registerTool('list_modules', {
    description: 'The modules of this tool server, how many tools each has and whether this connection loaded them (?modules=a,b)',
    inputSchema: {},
  }, async () => {
    const names = [...new Set(tools.map((t) => t.group))].filter((m) => m !== GLOBAL).sort();
    return json({
      loaded: groups,
      modules: names.map((name) => ({ name, tools: tools.filter((t) => t.group === name).length, loaded: groups.includes(name) })),
      aliases: ALIASES,
      default: ['core', META],
    });
  });
  for (const d of deps.docs) {
    server.registerResource(d.name, d.uri, { description: d.description, mimeType: d.mimeType }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: d.mimeType, text: await d.read() }],
    }));
  }
  return server;
}

export function mountToolServer(deps: ToolServerDeps): (app: Express) => void {
  const { pipeline } = deps;
  const tools = allTools(pipeline.registry.all(), deps.configModules);
  const known = new Set([...tools.map((t) => t.group), META].filter((m) => m !== GLOBAL));
  const { send } = httpFailure('admin', pipeline.neutral);
  /**
   * One for every request's server: each would otherwise build its own Ajv (3 s of the hostile corpus's 43 s of MCP
   * calls), which only elicitation uses, and these tools never elicit.
   */
  const validator = new AjvJsonSchemaValidator();
  const handle = async (req: Request, res: Response) => {
    try {
      pipeline.admit('mcp');
      const headers = headersOf(req);
      // Admin JWT or API token only: the pipeline holds each transport's credential rule.
      const principal = await pipeline.admin(headers, String(req.ip), 'mcp');
      const param = typeof req.query.modules === 'string' ? req.query.modules : undefined;
      const { groups, unknown } = selectGroups(param, known);
      if (unknown.length) {
        throw new AppError('VALIDATION_FAILED', `Unknown modules: ${unknown.join(', ')}; known: ${[...known].sort().join(', ')}`,
          unknown.map((m) => ({ path: 'query.modules', message: `no module ${m}` })));
      }
      if (req.method !== 'POST') {
        res.status(405).setHeader('Allow', 'POST').json(adminErrorBody(new AppError('BAD_REQUEST', 'This tool server is stateless: POST JSON-RPC messages')));
        return;
      }
      const server = build(deps, tools, groups, { transport: 'mcp', ip: String(req.ip), headers, principal, bounded: true, request: callRequest(req) }, validator);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (e) {
      if (!res.headersSent) send(res, e, `${req.method} /mcp`);
    }
  };
  return (app) => {
    app.all('/mcp', handle);
  };
}
