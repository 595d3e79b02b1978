// The MCP tool server at {admin}/mcp: Streamable HTTP (stateless), the admin routes as tools, docs as resources.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Express, Request, Response } from 'express';
import { AppError, adminErrorBody } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { AdminPrincipal } from '../../services/admin-auth.js';
import { sendError, headersOf } from '../http/express-adapter.js';
import { splitArgs } from '../flat-args.js';
import { asAppError, collected, invoke, type InvokeDeps } from '../invoke.js';
import type { Route } from '../registry.js';
import { ALIASES, META, allTools, selectModules, type Tool } from './modules.js';

export interface DocResource { uri: string; name: string; description: string; mimeType: string; read(): Promise<string> }

export interface ToolServerDeps extends InvokeDeps {
  routes: Route[];
  log: Logger;
  version: string;
  /** Config module names (each gets get_config_{module} and patch_config_{module} when loaded). */
  configModules: string[];
  /** Whether admin config `core.transports.mcp` is on. */
  enabled(): boolean;
  docs: DocResource[];
}

const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }] });

function build(deps: ToolServerDeps, tools: Tool[], modules: string[], principal: AdminPrincipal, headers: Record<string, string | undefined>) {
  const server = new McpServer({ name: 'authz-graph', version: deps.version }, {
    instructions: 'Authorization service administration. Call list_modules first; reconnect with ?modules=a,b to load more tools. '
      + 'Tool arguments are flat: path parameters, query and body fields side by side. Errors come back as the REST error body.',
  });
  const loaded = tools.filter((t) => modules.includes(t.module));
  for (const t of loaded) {
    server.registerTool(t.name, { description: t.description, inputSchema: t.inputSchema }, async (args: Record<string, unknown>) => {
      try {
        const raw = splitArgs(t.route, t.flat, { ...args, ...t.fixed }, headers);
        const reply = await collected(await invoke(t.route, { ...raw, principal }, deps));
        return json(reply.text ?? reply.body ?? {});
      } catch (e) {
        return { ...json(adminErrorBody(asAppError(e, deps.log, `MCP ${t.name}`))), isError: true };
      }
    });
  }
  server.registerTool('list_modules', {
    description: 'The modules of this tool server, how many tools each has and whether this connection loaded them (?modules=a,b)',
    inputSchema: {},
  }, async () => {
    const names = [...new Set(tools.map((t) => t.module))].sort();
    return json({
      loaded: modules,
      modules: names.map((name) => ({ name, tools: tools.filter((t) => t.module === name).length, loaded: modules.includes(name) })),
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
  const tools = allTools(deps.routes, deps.configModules);
  const known = new Set([...tools.map((t) => t.module), META]);
  const handle = async (req: Request, res: Response) => {
    try {
      if (!deps.enabled()) throw new AppError('ROUTE_NOT_FOUND', 'The tool server is off (config core.transports.mcp)');
      const headers = headersOf(req);
      // Admin JWT or API token; the masterkey is for people at a terminal, not for agents.
      if (!headers.authorization) throw new AppError('UNAUTHENTICATED', 'Send Authorization: Bearer <admin JWT or API token>');
      const principal = await deps.auth.authenticate({ authorization: headers.authorization });
      const param = typeof req.query.modules === 'string' ? req.query.modules : undefined;
      const { modules, unknown } = selectModules(param, known);
      if (unknown.length) {
        throw new AppError('VALIDATION_FAILED', `Unknown modules: ${unknown.join(', ')}; known: ${[...known].sort().join(', ')}`,
          unknown.map((m) => ({ path: 'query.modules', message: `no module ${m}` })));
      }
      if (req.method !== 'POST') {
        res.status(405).setHeader('Allow', 'POST').json(adminErrorBody(new AppError('BAD_REQUEST', 'This tool server is stateless: POST JSON-RPC messages')));
        return;
      }
      const server = build(deps, tools, modules, principal, headers);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => { void transport.close(); void server.close(); });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (e) {
      if (!res.headersSent) sendError('admin', res, asAppError(e, deps.log, `${req.method} /mcp`));
    }
  };
  return (app) => { app.all('/mcp', handle); };
}
