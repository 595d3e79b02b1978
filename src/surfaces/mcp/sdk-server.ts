// The MCP SDK's part of the tool server: one stateless server and transport per request. Loaded on the first /mcp call
// (tool-server.ts), since most processes never get one and the SDK costs every start a few hundred milliseconds.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Request, Response } from 'express';
import { AppError, adminErrorBody } from '../../errors.js';
import { splitArgs } from '../flat-args.js';
import { collected, type Caller } from '../pipeline.js';
import { ALIASES, GLOBAL, META, type Tool } from './tool-groups.js';
import type { ToolServerDeps } from './tool-server.js';

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

/**
 * One for every request's server: each would otherwise build its own Ajv (3 s of the hostile corpus's 43 s of MCP
 * calls), which only elicitation uses, and these tools never elicit.
 */
const validator = new AjvJsonSchemaValidator();

/** Answers one JSON-RPC POST with a server of the tools of `groups`, for `caller`. */
export async function serveRequest(deps: ToolServerDeps, tools: Tool[], groups: string[], caller: Caller, req: Request, res: Response): Promise<void> {
  const server = build(deps, tools, groups, caller, validator);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
