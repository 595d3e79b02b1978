// The MCP tool server at {admin}/mcp: Streamable HTTP (stateless), the admin routes as tools, docs as resources.
import { lazyImport } from '../../lazy-import.js';
import type { Express, Request, Response } from 'express';
import { AppError, adminErrorBody } from '../../errors.js';
import { callRequest } from '../http/access-log.js';
import { headersOf, httpFailure } from '../http/wire.js';
import type { Pipeline } from '../pipeline.js';
import { GLOBAL, META, allTools, selectGroups } from './tool-groups.js';

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

/** The SDK's part, imported on the first call (sdk-server.ts). */
const loadSdk = lazyImport(() => import('./sdk-server.js'));

export function mountToolServer(deps: ToolServerDeps): (app: Express) => void {
  const { pipeline } = deps;
  const tools = allTools(pipeline.registry.all(), deps.configModules);
  const known = new Set([...tools.map((t) => t.group), META].filter((m) => m !== GLOBAL));
  const { send } = httpFailure('admin', pipeline.neutral);
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
      const { serveRequest } = await loadSdk();
      await serveRequest(deps, tools, groups, { transport: 'mcp', ip: String(req.ip), headers, principal, bounded: true, request: callRequest(req) }, req, res);
    } catch (e) {
      if (!res.headersSent) send(res, e, `${req.method} /mcp`);
    }
  };
  return (app) => {
    app.all('/mcp', handle);
  };
}
